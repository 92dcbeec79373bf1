// `replay` without --dry-run: the suite's main job. Starts MPI, builds (or loads) the schedule
// for this rank, replays it on the chosen backend beside the compute engine in three passes, and
// reports per-unit headroom, the step summary and the straggler view (stdout table on rank 0,
// JSON Lines with --out).
#pragma once
#include "bench/replay/cli/replay_options.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay {

// `parsed`: options.run as validate_replay_options parsed and checked it (once, before MPI).
// Returns the exit status; errors are thrown (common/errors.hpp) for guarded_main.
int run_replay(const ReplayOptions& options, const WorkloadRequest& request,
               const RunSetup& parsed);

}  // namespace collreplay
