// preflight: GPU health (NVML), a short GEMM on every rank and the topology, before a run.
//   mpirun -np N preflight [--backend nccl|mpi] [--slow-threshold 0.1] [--strict] [--json FILE]
#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"
#include "bench/preflight/preflight_main.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    collreplay::PreflightCommand command;
    return collreplay::run_with_flags(
        n, args, "collreplay preflight: GPU health, per-rank GEMM speed and topology",
        [&](CLI::App& app) { collreplay::add_preflight_options(app, command); },
        [&] { return collreplay::run_preflight_command(command); });
  });
}
