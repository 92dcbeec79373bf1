// Which point-to-point ops of a schedule are issued together, as torch's batch_isend_irecv issues
// them: send / recv / send_recv ops of one group (kind, and size and stride for a strided one),
// consecutive among the schedule's collectives (compute ops between them run on another stream),
// none depending on an op at or after the group's first (nothing the group waits for can wait for
// the group). One rule for the executor (bench/executor/p2p_groups.hpp) and the pipeline's step
// simulation (workloads/plan/pipeline/pipeline_sim.hpp).
#pragma once
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

// Per op, the op its p2p group is issued with: itself for every op outside a larger group
// (compute ops and other collectives included).
std::vector<int> p2p_group_leaders(const Schedule& schedule);

// A pipeline's stage count and this schedule's stage: the strided group of its sends and
// receives that spans the world (workloads/plan/pipeline/pipeline_builder.hpp) and the rank's
// place in it; {1, 0} for a schedule without one.
struct PipelinePlace {
  int stages = 1, stage = 0;
};
PipelinePlace pipeline_place(const Schedule& schedule);

}  // namespace collreplay
