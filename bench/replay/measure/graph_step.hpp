// replay -G: the comm-only step once more, recorded as one CUDA graph and launched N times, so
// that what launching op by op costs shows beside it: (comm-only step launched op by op - the
// graph's step) / collectives is the host cost per collective that a graph launch does not pay
// (the launch, and the two events the comm-only pass records around each op to time it).
#pragma once
#include <string>

#include "bench/executor/executor.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// UsageError unless every collective of the schedule runs on one group: one graph is recorded
// on one communicator's stream.
void require_one_collective_group(const Schedule& schedule);

// Collectives per step, all on one group (require_one_collective_group).
int collectives_per_step(const Schedule& schedule);

// Records the schedule's collectives, in order, on their group's communicator into a CUDA graph
// (after the comm-only pass, so that every staging buffer is sized) and launches it once
// untimed, then `launches` times, each timed like a comm-only step: from a world barrier to the
// stream drained, the slowest rank's (agree_max). Returns the median. Collective.
double time_comm_only_graph(const Executor& executor, int launches, const AgreeMax& agree_max);

}  // namespace collreplay
