#include "bench/replay/cli/dry_run.hpp"

#include <iostream>

#include <nlohmann/json.hpp>

#include "bench/replay/cli/pipeline_dry_run.hpp"
#include "bench/replay/footprint.hpp"
#include "common/errors.hpp"
#include "workloads/plan/pipeline/pipeline_plan.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/trace/trace_import.hpp"
#include "workloads/schedule_file.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"
#include "workloads/trace/trace_listing.hpp"

namespace collreplay {

int run_dry_run(const WorkloadRequest& request, const DryRunOptions& options) {
  if (options.format != "table" && options.format != "json" && options.format != "slices")
    throw UsageError("unknown --format '" + options.format + "' (expected table, json or slices)");
  const Schedule schedule = options.schedule_file.empty()
                                ? schedule_for_request(request)
                                : load_schedule_for_rank(options.schedule_file, request.rank);
  if (is_per_rank_pattern(options.save_schedule)) {
    // Every rank's schedule, one file each: what replay --schedule 'dir/rank%d.json' reads.
    for (int rank = 0; rank < schedule.world; ++rank) {
      Schedule mine = schedule;
      if (options.schedule_file.empty()) {
        WorkloadRequest other = request;
        other.rank = rank;
        mine = schedule_for_request(other);
      } else if (rank != schedule.rank) {
        mine = load_schedule_for_rank(options.schedule_file, rank);
      }
      save_schedule_file(mine, path_for_rank(options.save_schedule, rank));
    }
  } else if (!options.save_schedule.empty()) {
    save_schedule_file(schedule, options.save_schedule);
  }
  // What a run would allocate per rank, by where its buffers live (--backend mpi: host;
  // nccl: GPU), before anything is allocated.
  const MemoryFootprint host = estimate_footprint(schedule, false, false);
  const MemoryFootprint gpu = estimate_footprint(schedule, true, false);
  // Built from the catalog (not a loaded schedule, not a trace): which AdamW it runs, and why.
  const bool built = options.schedule_file.empty() && request.trace.empty();
  const OptimizerChoice optimizer = built ? request_optimizer(request) : OptimizerChoice{};
  if (options.format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(dry_run_json(schedule));
    if (built)
      j["optimizer"] = {{"name", optimizer_name(optimizer.kind)}, {"why", optimizer.why}};
    if (built && pipelined(request)) j["pipeline"] = pipeline_json(request);
    auto memory = [](const MemoryFootprint& f) {
      return nlohmann::ordered_json{{"bytes", f.checked_bytes()},
                                    {"collective_bytes", f.collective_bytes},
                                    {"gemm_operand_bytes", f.gemm_operand_bytes},
                                    {"backend_scratch_bytes", f.backend_scratch_bytes}};
    };
    j["memory_per_rank"] = {{"host_run", memory(host)}, {"gpu_run", memory(gpu)}};
    std::cout << j.dump(1) << "\n";
  } else if (options.format == "slices") {
    print_schedule_slices(schedule, std::cout);
  } else {
    print_schedule_table(schedule, std::cout);
    if (built)
      std::cout << "# optimizer: " << optimizer_name(optimizer.kind) << " (" << optimizer.why
                << ")\n";
    if (built && pipelined(request)) print_pipeline(request, std::cout);
    if (!request.trace.empty()) trace::print_trace_listing(trace::import_trace(request), std::cout);
    std::cout << "# memory, host run (--backend mpi): " << describe_footprint(host) << "\n"
              << "# memory, GPU run (nccl): " << describe_footprint(gpu) << "\n";
  }
  std::cout.flush();
  return kExitOk;
}

}  // namespace collreplay
