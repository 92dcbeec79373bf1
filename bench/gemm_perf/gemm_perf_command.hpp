// gemm_perf: the compute engine's GEMMs against plain cuBLAS on this GPU, for the GEMM shapes of
// a workload (replay's workload flags) or of shapes given with --shape MxNxK[xBATCH].
#pragma once
#include <string>
#include <vector>

#include "bench/app/run/cli_names.hpp"
#include "bench/compute/gemm/gemm_compare.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay {

struct GemmPerfCommand {
  WorkloadRequest workload;
  std::vector<std::string> shapes;  // "MxNxK" or "MxNxKxBATCH"; empty: the workload's shapes
  GemmCompareOptions compare;
  std::string out_path;
};

void add_gemm_perf_options(CLI::App& app, GemmPerfCommand& command);
int run_gemm_perf(const GemmPerfCommand& command, const std::vector<std::string>& command_line);

}  // namespace collreplay
