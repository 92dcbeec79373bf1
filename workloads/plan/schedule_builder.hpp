// Turns model + plan + world into the Schedule of one training step of one rank.
#pragma once
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// Validates the request (UsageError naming the first bad field) and builds the schedule; the
// rules are in workloads/README.md and workloads/SCHEDULE.md.
Schedule build_schedule(const WorkloadRequest& request);

}  // namespace collreplay
