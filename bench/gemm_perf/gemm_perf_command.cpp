#include "bench/gemm_perf/gemm_perf_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

GemmShape parse_shape(const std::string& text) {
  std::vector<std::int64_t> dims;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, 'x')) {
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || value <= 0)
      throw UsageError("--shape '" + text + "' is not MxNxK or MxNxKxBATCH with positive sizes");
    dims.push_back(value);
  }
  if (dims.size() != 3 && dims.size() != 4)
    throw UsageError("--shape '" + text + "' is not MxNxK or MxNxKxBATCH with positive sizes");
  return {dims[0], dims[1], dims[2], dims.size() == 4 ? dims[3] : 1, text};
}

// Each distinct (m, n, k, batch) once, labelled by its first use, in schedule order. Grouped
// GEMMs (--experts grouped) are left out: the three methods compared here run plain GEMMs, and
// a grouped one's mean-row shape is not what runs (gpu_tests GroupedGemm.* times those).
std::vector<GemmShape> workload_shapes(const WorkloadRequest& request) {
  const Schedule schedule = build_schedule(request);
  std::vector<GemmShape> shapes;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, bool> seen;
  for (const ScheduleOp& op : schedule.ops) {
    if (op.is_collective()) continue;
    for (const GemmShape& s : op.compute().gemms)
      if (s.group_rows.empty() && !seen[{s.m, s.n, s.k, s.batch}]) {
        seen[{s.m, s.n, s.k, s.batch}] = true;
        shapes.push_back(s);
      }
  }
  return shapes;
}

}  // namespace

void add_gemm_perf_options(CLI::App& app, GemmPerfCommand& command) {
  add_workload_options(app, command.workload);
  app.add_option("--shape", command.shapes,
                 "GEMM shape MxNxK[xBATCH] (row-major C[MxN] = A[MxK] B[KxN]); repeatable; "
                 "default: every distinct shape of the workload");
  app.add_option("--iters", command.compare.iterations, "GEMMs back to back per timing")
      ->check(CLI::PositiveNumber);
  app.add_option("--rounds", command.compare.rounds, "interleaved rounds (median reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--device", command.compare.device, "GPU index")->check(CLI::NonNegativeNumber);
  app.add_option("--out", command.out_path, "JSON Lines results file");
}

int run_gemm_perf(const GemmPerfCommand& command, const std::vector<std::string>& command_line) {
  std::vector<GemmShape> shapes;
  for (const std::string& text : command.shapes) shapes.push_back(parse_shape(text));
  if (shapes.empty()) shapes = workload_shapes(command.workload);
  ResultsFile results(command.out_path, true);
  const std::vector<GemmComparison> rows = compare_gemms(shapes, command.compare);
  std::printf(
      "# collreplay gemm_perf: bf16, fp32 accumulate, %d GEMMs per timing, median of %d "
      "interleaved rounds\n",
      command.compare.iterations, command.compare.rounds);
  std::printf("# %-34s %7s %7s %7s %5s %10s %10s %10s %6s\n", "shape", "M", "N", "K", "batch",
              "engine", "GemmEx", "Lt-heur", "ratio");
  std::printf("# %-34s %7s %7s %7s %5s %10s %10s %10s %6s\n", "", "", "", "", "", "(TFLOP/s)",
              "(TFLOP/s)", "(TFLOP/s)", "");
  double worst = 0;
  for (const GemmComparison& r : rows) {
    std::printf("  %-34s %7lld %7lld %7lld %5lld %10.1f %10.1f %10.1f %6.3f\n",
                r.shape.label.c_str(), static_cast<long long>(r.shape.m),
                static_cast<long long>(r.shape.n), static_cast<long long>(r.shape.k),
                static_cast<long long>(r.shape.batch), r.engine_tflops, r.gemm_ex_tflops,
                r.lt_heuristic_tflops, r.ratio());
    worst = worst == 0 ? r.ratio() : std::min(worst, r.ratio());
    results.add({{"record", "gemm"},
                 {"label", r.shape.label},
                 {"m", r.shape.m},
                 {"n", r.shape.n},
                 {"k", r.shape.k},
                 {"batch", r.shape.batch},
                 {"a_transposed", r.shape.a_transposed},
                 {"engine_tflops", r.engine_tflops},
                 {"gemm_ex_tflops", r.gemm_ex_tflops},
                 {"lt_heuristic_tflops", r.lt_heuristic_tflops},
                 {"ratio", r.ratio()},
                 {"iterations", command.compare.iterations},
                 {"rounds", command.compare.rounds},
                 {"command_line", command_line}});
  }
  std::printf("# worst ratio engine / best plain cuBLAS: %.3f\n", worst);
  results.commit();
  return kExitOk;
}

}  // namespace collreplay
