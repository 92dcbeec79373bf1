#include "workloads/plan/parallel/mesh.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace collreplay {

int MeshLayout::expert_local() const {
  return std::max(1, std::min(gpus_per_node, world) / std::max(tp, 1));
}

MeshLayout mesh_layout(const Schedule& s) {
  return MeshLayout{s.world, s.gpus_per_node, s.tp, s.ep, s.shard_group};
}

int mesh_group_size(const MeshLayout& m, GroupKind group) {
  switch (group) {
    case GroupKind::world: return m.world;
    case GroupKind::node: return std::min(m.gpus_per_node, m.world);
    case GroupKind::expert: return m.ep;
    case GroupKind::data_parallel: return m.world / (m.ep * m.tp);
    case GroupKind::tp: return m.tp;
    case GroupKind::shard: return m.shard();
    case GroupKind::replicate: return m.world / (m.shard() * m.tp);
    case GroupKind::expert_node: return std::min(m.expert_local(), m.ep);
    case GroupKind::expert_rail: return std::max(1, m.ep / m.expert_local());
    case GroupKind::strided: return 0;  // per op: strided_group()
  }
  return 0;
}

int mesh_group_color(const MeshLayout& m, GroupKind group, int rank) {
  const int t = rank % m.tp;
  switch (group) {
    case GroupKind::world: return 0;
    case GroupKind::node: return rank / m.gpus_per_node;
    case GroupKind::expert: return rank / (m.ep * m.tp) * m.tp + t;
    case GroupKind::data_parallel: return rank % (m.ep * m.tp);
    case GroupKind::tp: return rank / m.tp;
    case GroupKind::shard: return rank / (m.shard() * m.tp) * m.tp + t;
    case GroupKind::replicate: return rank % (m.shard() * m.tp);
    case GroupKind::expert_node: return rank / m.gpus_per_node * m.tp + t;
    case GroupKind::expert_rail: {
      const int local = m.expert_local();
      const int d = rank / (m.ep * m.tp), e = rank / m.tp % m.ep;
      return (d * local + e % local) * m.tp + t;
    }
    case GroupKind::strided: return 0;  // per op: strided_group()
  }
  return 0;
}

std::string StridedGroup::problem(int world) const {
  if (size < 1 || stride < 1) return "group_size and group_stride must be at least 1";
  if (static_cast<long long>(size) * stride > world || world % block() != 0)
    return "group_size x group_stride (" + std::to_string(size) + " x " + std::to_string(stride) +
           ") does not divide world " + std::to_string(world);
  return {};
}

StridedGroup strided_group(const CollectiveOp& c) { return {c.group_size, c.group_stride}; }

MeshDims parse_mesh(std::string_view text) {
  MeshDims d;
  int* dims[] = {&d.dp, &d.ep, &d.tp};
  std::size_t from = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t x = i < 2 ? text.find('x', from) : text.size();
    const std::string part(
        text.substr(from, x == std::string_view::npos ? text.size() - from : x - from));
    bool ok = x != std::string_view::npos && !part.empty() && part.size() <= 6 &&
              part.find_first_not_of("0123456789") == std::string::npos;
    if (ok) *dims[i] = std::stoi(part);
    if (!ok || *dims[i] < 1)
      throw UsageError("bad --mesh '" + std::string(text) + "' (expected DPxEPxTP, e.g. 2x4x2)");
    from = x + 1;
  }
  return d;
}

}  // namespace collreplay
