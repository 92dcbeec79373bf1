#include "bench/replay/op_line_rate.hpp"

#include <map>

#include "common/dtype.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

// The op's groups, each its members in group-rank order (ascending world rank, as the executor
// splits them).
std::vector<std::vector<int>> groups_of(const Schedule& schedule, const CollectiveOp& c,
                                        int world) {
  const MeshLayout mesh = mesh_layout(schedule);
  const StridedGroup strided = strided_group(c);
  std::map<int, std::vector<int>> by_color;
  for (int rank = 0; rank < world; ++rank) {
    const int color =
        c.group == GroupKind::strided ? strided.color(rank) : mesh_group_color(mesh, c.group, rank);
    by_color[color].push_back(rank);
  }
  std::vector<std::vector<int>> groups;
  for (auto& [color, members] : by_color) groups.push_back(std::move(members));
  return groups;
}

}  // namespace

std::optional<LineRateVerdict> replay_op_line_rate(const Schedule& schedule, const ScheduleOp& op,
                                                   const NodeLinks& links, double bus_bytes,
                                                   double seconds) {
  if (!op.is_collective()) return std::nullopt;
  const CollectiveOp& c = op.collective();
  if (c.group == GroupKind::node) return std::nullopt;  // one host's ranks: nothing crosses
  const int world = static_cast<int>(links.node_of_rank.size());
  std::optional<LineRateVerdict> tightest;
  for (std::vector<int>& members : groups_of(schedule, c, world)) {
    CollectiveTraffic traffic;
    traffic.kind = c.kind;
    traffic.bytes = c.bytes;
    traffic.members = std::move(members);
    traffic.root = c.root;
    traffic.element_bytes = dtype_size_bytes(c.dtype);
    const std::optional<LineRateVerdict> v =
        judge_line_rate(traffic, links, RankReduce::max, bus_bytes, seconds);
    if (v && (!tightest || v->max_busbw_GBps < tightest->max_busbw_GBps)) tightest = v;
  }
  return tightest;
}

}  // namespace collreplay
