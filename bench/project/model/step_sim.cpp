#include "bench/project/model/step_sim.hpp"

#include <algorithm>
#include <map>

#include "bench/executor/group_key.hpp"
#include "common/errors.hpp"

namespace collreplay::project {

std::vector<int> op_streams(const Schedule& schedule) {
  std::map<GroupKey, int> group_stream;
  std::vector<int> streams(schedule.ops.size(), 0);
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    if (!op.is_collective()) continue;
    const GroupKey key = group_key(op.collective());
    auto found = group_stream.find(key);
    if (found == group_stream.end())
      found = group_stream.emplace(key, static_cast<int>(group_stream.size()) + 1).first;
    streams[i] = found->second;
  }
  return streams;
}

double simulate_step_ms(const Schedule& schedule, const std::vector<double>& op_ms) {
  if (op_ms.size() != schedule.ops.size())
    throw RuntimeError("step simulation: one time per op needed");
  const std::vector<int> streams = op_streams(schedule);
  std::vector<double> stream_free(
      1 + (streams.empty() ? 0 : static_cast<std::size_t>(
                                     *std::max_element(streams.begin(), streams.end()))),
      0.0);
  std::vector<double> end(schedule.ops.size(), 0.0);
  double step = 0;
  // List order is a valid order: deps point to earlier ops, and each stream runs its ops in
  // list order.
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    double& free = stream_free[static_cast<std::size_t>(streams[i])];
    double start = free;
    for (int d : schedule.ops[i].deps)
      if (d >= 0 && static_cast<std::size_t>(d) < i) start = std::max(start, end[d]);
    end[i] = start + op_ms[i];
    free = end[i];
    step = std::max(step, end[i]);
  }
  return step;
}

double simulate_pipeline_ms(const RankSimulation& stages,
                            const std::vector<std::vector<double>>& op_ms) {
  return stages.run(op_ms).step_ms;
}

}  // namespace collreplay::project
