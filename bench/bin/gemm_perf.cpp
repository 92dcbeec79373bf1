// gemm_perf: the engine's GEMMs against cublasGemmEx and cuBLASLt's heuristic, same operands.
#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"
#include "bench/gemm_perf/gemm_perf_command.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    collreplay::GemmPerfCommand command;
    return collreplay::run_with_flags(
        n, args, "collreplay gemm_perf: engine GEMMs vs plain cuBLAS on one GPU",
        [&](CLI::App& app) { collreplay::add_gemm_perf_options(app, command); },
        [&] { return collreplay::run_gemm_perf(command, {args, args + n}); });
  });
}
