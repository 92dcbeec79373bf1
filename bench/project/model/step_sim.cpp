#include "bench/project/model/step_sim.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace collreplay::project {

double simulate_step_ms(const Schedule& schedule, const std::vector<double>& op_ms) {
  if (op_ms.size() != schedule.ops.size())
    throw RuntimeError("step simulation: one time per op needed");
  std::vector<double> end(schedule.ops.size(), 0.0);
  double stream_free[2] = {0, 0};
  double step = 0;
  // List order is a valid order: deps point to earlier ops, and each stream runs its ops in
  // list order.
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    double& free = stream_free[op.stream == StreamKind::comm ? 0 : 1];
    double start = free;
    for (int d : op.deps)
      if (d >= 0 && static_cast<std::size_t>(d) < i) start = std::max(start, end[d]);
    end[i] = start + op_ms[i];
    free = end[i];
    step = std::max(step, end[i]);
  }
  return step;
}

}  // namespace collreplay::project
