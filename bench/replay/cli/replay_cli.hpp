// replay's command line: its executor flags beside the workload flags, and the program's body
// (bench/bin/replay.cpp calls replay_main). The metric definitions go in the app's footer, so
// `replay --help` defines every number replay prints.
#pragma once
#include "bench/app/run/cli_names.hpp"
#include "bench/replay/cli/replay_options.hpp"

namespace collreplay {

// `replay ARGS`: the flags parsed, then --dry-run's schedule or the measured step; the exit code.
int replay_main(int argc, char** argv);

void add_replay_options(CLI::App& app, ReplayOptions& options);

// Checks that do not need MPI (so every rank fails alike, before any communicator): UsageError.
// Returns the run flags parsed (parse_run_flags), to be passed on rather than parsed again.
RunSetup validate_replay_options(const ReplayOptions& options);

}  // namespace collreplay
