// replay: runs one training step's schedule (model + plan + world) on the fabric. This file so
// far implements --dry-run only: build or load the schedule and print it, without starting MPI.
#include <CLI/CLI.hpp>
#include <iostream>

#include "bench/dry_run.hpp"
#include "bench/guarded_main.hpp"
#include "bench/workload_cli.hpp"
#include "common/errors.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay replay: FSDP / expert-parallel training step replay"};
    collreplay::WorkloadRequest request;
    collreplay::DryRunOptions dry;
    bool dry_run = false;
    collreplay::add_workload_options(app, request);
    app.add_flag("--dry-run", dry_run, "print the schedule; no MPI, no GPU");
    app.add_option("--format", dry.format, "dry-run output: table | json")->capture_default_str();
    app.add_option("--schedule", dry.schedule_file, "load this schedule JSON instead of building one");
    app.add_option("--save-schedule", dry.save_schedule, "write the schedule JSON here");
    try {
      app.parse(n, args);
    } catch (const CLI::Success& e) {
      return app.exit(e);  // --help
    } catch (const CLI::ParseError& e) {
      throw collreplay::UsageError(e.what());
    }
    if (!dry_run) throw collreplay::UsageError("only --dry-run is implemented so far");
    return collreplay::run_dry_run(request, dry);
  });
}
