// Several ranks' schedules run together from per-op times: what a pipeline's step takes, with the
// bubble coming out of the order and the waits, not a formula. Each rank runs its compute stream
// and one comm stream per process group (as PyTorch keeps one NCCL stream per group), each in
// list order, with the schedule's dependencies; point-to-point ops go in the groups the executor
// issues (workloads/p2p_batches.hpp), and the k-th send from rank a to rank b meets the k-th
// receive on b from a: both start when both groups have started, and end together after the
// longer of the two sides' times. Other collectives are timed on their own (the ranks of a stage
// run alike). Used by `replay --dry-run` (op times from FLOPs) and by `project` (the cost model).
#pragma once
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

struct RankTimeline {
  int rank = 0;            // world rank
  double end_ms = 0;       // when its last op ends
  double compute_ms = 0;   // its compute stream's busy time
  double first_ms = 0;     // when its compute stream starts its first op
};

struct PipelineStep {
  double step_ms = 0;  // the last rank's end
  std::vector<RankTimeline> ranks;
};

// The schedules' streams, p2p groups and matched sends and receives, worked out once for runs
// under many sets of op times (a projection's exposure by group). The schedules must outlive it.
class RankSimulation {
 public:
  // Every send and receive must have its peer among the schedules (RuntimeError otherwise).
  explicit RankSimulation(const std::vector<const Schedule*>& schedules);
  ~RankSimulation();
  RankSimulation(const RankSimulation&) = delete;
  RankSimulation& operator=(const RankSimulation&) = delete;

  // `op_ms[i]`: one time per op of schedules[i]. RuntimeError when the ranks wait for each other
  // forever.
  PipelineStep run(const std::vector<std::vector<double>>& op_ms) const;

 private:
  struct Rank;
  std::vector<Rank> ranks_;
};

// One run of RankSimulation.
PipelineStep simulate_ranks(const std::vector<const Schedule*>& schedules,
                            const std::vector<std::vector<double>>& op_ms);

}  // namespace collreplay
