// `replay --dry-run`: builds (or loads) a schedule and prints it; no MPI, no GPU.
#pragma once
#include <string>

#include "workloads/plan/request.hpp"

namespace collreplay {

struct DryRunOptions {
  std::string format = "table";  // table | json | slices
  std::string schedule_file;     // load this schedule instead of building one
  std::string save_schedule;     // also write the full schedule JSON here
};

// Prints to stdout; returns the exit code. Throws UsageError for bad input.
int run_dry_run(const WorkloadRequest& request, const DryRunOptions& options);

}  // namespace collreplay
