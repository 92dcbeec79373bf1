#include "workloads/p2p_batches.hpp"

#include <algorithm>

#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

bool same_group(const CollectiveOp& a, const CollectiveOp& b) {
  if (a.group != b.group) return false;
  return a.group != GroupKind::strided ||
         (a.group_size == b.group_size && a.group_stride == b.group_stride);
}

}  // namespace

std::vector<int> p2p_group_leaders(const Schedule& schedule) {
  const int count = static_cast<int>(schedule.ops.size());
  std::vector<int> leader(count);
  int open = -1;  // first op of the group being built
  for (int i = 0; i < count; ++i) {
    leader[i] = i;
    const ScheduleOp& op = schedule.ops[i];
    if (!op.is_collective()) continue;  // compute ops run on another stream
    if (!is_point_to_point(op.collective().kind)) {
      open = -1;
      continue;
    }
    const std::vector<int>& deps = op.deps;
    const bool joins = open >= 0 && same_group(op.collective(), schedule.ops[open].collective()) &&
                       std::all_of(deps.begin(), deps.end(), [&](int d) { return d < open; });
    if (!joins) open = i;
    leader[i] = open;
  }
  return leader;
}

PipelinePlace pipeline_place(const Schedule& schedule) {
  for (const ScheduleOp& op : schedule.ops) {
    if (!op.is_collective() || !is_point_to_point(op.collective().kind)) continue;
    const StridedGroup g = strided_group(op.collective());
    if (op.collective().group == GroupKind::strided && g.size > 1 && g.block() == schedule.world)
      return {g.size, g.group_rank(schedule.rank)};
  }
  return {};
}

}  // namespace collreplay
