// replay: runs one training step's schedule (model + plan + world) on the fabric beside its GEMM
// slices and reports the overlap headroom (bench/replay/replay_run.hpp); --dry-run only prints the
// schedule, without MPI or a GPU.
#include "bench/app/guarded_main.hpp"

#include <CLI/CLI.hpp>

#include "bench/flags/parse_flags.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/replay/cli/dry_run.hpp"
#include "bench/replay/cli/replay_cli.hpp"
#include "bench/replay/replay_run.hpp"
#include "common/errors.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay replay: FSDP / expert-parallel training step replay"};
    collreplay::WorkloadRequest request;
    collreplay::DryRunOptions dry;
    collreplay::ReplayOptions replay;
    bool dry_run = false;
    collreplay::add_workload_options(app, request);
    app.add_flag("--dry-run", dry_run, "print the schedule; no MPI, no GPU");
    app.add_option("--format", dry.format, "dry-run output: table | json | slices (every GEMM and kernel of every compute op)")->capture_default_str();
    app.add_option("--schedule", dry.schedule_file,
                   "load this schedule JSON instead of building one")
        ->excludes(collreplay::add_trace_option(app, request));
    app.add_option("--save-schedule", dry.save_schedule, "write the schedule JSON here");
    collreplay::add_replay_options(app, replay);
    if (auto exit_code = collreplay::parse_flags(app, n, args)) return *exit_code;
    // Bad values are refused alike with --dry-run and without.
    const collreplay::RunSetup parsed = collreplay::validate_replay_options(replay);
    // A trace brings its own world unless --world asks for another (trace_import.hpp).
    if (!request.trace.empty() && app.count("--world") == 0) request.world = 0;
    // A dry run describes a GPU run unless --backend mpi asks for a host one.
    request.param_device =
        collreplay::replay_param_device(replay.backend == "mpi", parsed);
    if (dry_run && !replay.trace_out.empty())
      throw collreplay::UsageError(
          "--trace-out writes a measured step: run without --dry-run (--save-schedule writes "
          "the schedule)");
    if (dry_run) return collreplay::run_dry_run(request, dry);
    replay.schedule_file = dry.schedule_file;
    replay.command_line.assign(args, args + n);
    replay.gpus_per_node_given = app.count("--gpus-per-node") > 0;
    return collreplay::run_replay(replay, request, parsed);
  });
}
