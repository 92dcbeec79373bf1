// preflight: GPU health (NVML), a short GEMM on every rank and the topology, before a run.
//   mpirun -np N preflight [--backend nccl|mpi] [--slow-threshold 0.1] [--strict] [--json FILE]
#include <CLI/CLI.hpp>

#include <fstream>

#include "bench/app/guarded_main.hpp"
#include "bench/preflight/preflight_main.hpp"
#include "common/errors.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay preflight: GPU health, per-rank GEMM speed and topology"};
    collreplay::PreflightCommand command;
    collreplay::add_preflight_options(app, command);
    try {
      app.parse(n, args);
    } catch (const CLI::Success& e) {
      return collreplay::launcher_rank() == 0 ? app.exit(e) : 0;
    } catch (const CLI::ParseError& e) {
      throw collreplay::UsageError(e.what());
    }
    return collreplay::run_preflight_command(command);
  });
}
