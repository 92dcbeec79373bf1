#include "bench/replay/cli/dry_run.hpp"

#include <iostream>

#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {

int run_dry_run(const WorkloadRequest& request, const DryRunOptions& options) {
  if (options.format != "table" && options.format != "json")
    throw UsageError("unknown --format '" + options.format + "' (expected table or json)");
  const Schedule schedule =
      options.schedule_file.empty() ? build_schedule(request) : load_schedule_file(options.schedule_file);
  if (!options.save_schedule.empty()) save_schedule_file(schedule, options.save_schedule);
  if (options.format == "json") std::cout << dry_run_json(schedule);
  else print_schedule_table(schedule, std::cout);
  std::cout.flush();
  return kExitOk;
}

}  // namespace collreplay
