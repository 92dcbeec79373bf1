// The standalone `preflight` executable's options and body (replay --preflight calls
// run_preflight directly).
#pragma once
#include <string>

#include "bench/app/run/cli_names.hpp"

namespace collreplay {

struct PreflightCommand {
  std::string backend;  // nccl | mpi; empty: nccl when a GPU is visible
  double slow_threshold = 0.10;
  bool strict = false;
  int compute_threads = 1;
  std::string json_path;  // write the report as JSON here (rank 0)
};

void add_preflight_options(CLI::App& app, PreflightCommand& command);
int run_preflight_command(const PreflightCommand& command);

}  // namespace collreplay
