// The overlapped step of a schedule from per-op times: the compute stream and one comm stream per
// process group (as replay's executor and PyTorch keep one NCCL stream per group), each running
// its ops in list order, and the schedule's cross-stream dependencies; no contention between
// them. What replay measures in its overlapped pass, computed instead of run.
#pragma once
#include <vector>

#include "workloads/plan/pipeline/pipeline_sim.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

// op_ms[i] is op i's time. Returns the step time (the last op's end), in ms.
double simulate_step_ms(const Schedule& schedule, const std::vector<double>& op_ms);

// A pipeline's step in ms: one rank per stage, each schedule with its op times, run together
// (workloads/plan/pipeline/pipeline_sim.hpp: a receive ends after its neighbour's send has
// started and moved the bytes), so the bubble comes out of the stages' order, not a formula.
double simulate_pipeline_ms(const RankSimulation& stages,
                            const std::vector<std::vector<double>>& op_ms);

// The stream op i runs on: 0 for compute, 1 + a number per process group (group kind, and size
// and stride for a strided one) for collectives.
std::vector<int> op_streams(const Schedule& schedule);

}  // namespace collreplay::project
