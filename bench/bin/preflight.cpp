// preflight: GPU health (NVML), a short GEMM on every rank and the topology, before a run.
//   mpirun -np N preflight [--backend nccl|mpi] [--slow-threshold 0.1] [--strict] [--json FILE]
#include <CLI/CLI.hpp>
#include <fstream>

#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"
#include "bench/preflight/preflight_main.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay preflight: GPU health, per-rank GEMM speed and topology"};
    collreplay::PreflightCommand command;
    collreplay::add_preflight_options(app, command);
    if (auto exit_code = collreplay::parse_flags(app, n, args)) return *exit_code;
    return collreplay::run_preflight_command(command);
  });
}
