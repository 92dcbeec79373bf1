// replay's executor flags, added to the CLI11 app that bench/bin/replay.cpp builds (beside the
// workload flags). The metric definitions go in the app's footer, so `replay --help` defines
// every number replay prints.
#pragma once
#include "bench/replay/cli/replay_options.hpp"

// CLI11 by name only (see bench/flags/run_flags.hpp): replay_run.cpp needs the checks, not CLI11.
namespace CLI {
class App;
}  // namespace CLI

namespace collreplay {

void add_replay_options(CLI::App& app, ReplayOptions& options);

// Checks that do not need MPI (so every rank fails alike, before any communicator): UsageError.
// Returns the run flags parsed (parse_run_flags), to be passed on rather than parsed again.
RunSetup validate_replay_options(const ReplayOptions& options);

}  // namespace collreplay
