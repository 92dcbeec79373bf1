// gemm_perf: the engine's GEMMs against cublasGemmEx and cuBLASLt's heuristic, same operands.
#include "bench/app/guarded_main.hpp"

#include <CLI/CLI.hpp>

#include "bench/flags/parse_flags.hpp"
#include "bench/gemm_perf/gemm_perf_command.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay gemm_perf: engine GEMMs vs plain cuBLAS on one GPU"};
    collreplay::GemmPerfCommand command;
    collreplay::add_gemm_perf_options(app, command);
    if (auto exit_code = collreplay::parse_flags(app, n, args)) return *exit_code;
    return collreplay::run_gemm_perf(command, {args, args + n});
  });
}
