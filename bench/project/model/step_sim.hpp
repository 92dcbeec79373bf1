// The overlapped step of a schedule from per-op times: two FIFO streams (comm, compute) and the
// schedule's cross-stream dependencies, no contention between them. What replay measures in its
// overlapped pass, computed instead of run.
#pragma once
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay::project {

// op_ms[i] is op i's time. Returns the step time (the last op's end), in ms.
double simulate_step_ms(const Schedule& schedule, const std::vector<double>& op_ms);

}  // namespace collreplay::project
