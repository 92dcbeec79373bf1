// project --trace: a trace's FLOPs (TraceImport::compute_flops, from its shapes) give TFLOP/s and
// MFU per node count; a trace without shapes gives neither, and the table prints "-".
#include <gtest/gtest.h>

#include <sstream>

#include "bench/project/compute_source.hpp"
#include "bench/project/project_report.hpp"
#include "bench/project/projection.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::project {
namespace {

ProjectionInputs trace_inputs(std::optional<double> traced_flops) {
  ProjectionInputs in;
  in.request.trace = test_support::fixtures("traces", "q05_small/rank0.trace.json");
  in.request.world = 0;  // the traced world
  in.request.seq = 512;
  in.request.gpus_per_node = 1;
  in.model.intra = TierParams{0, 100, 0, 1};
  in.model.inter = TierParams{0, 10, 0, 1};
  in.compute = parse_compute("model:h100@0.5", in.request);
  in.traced_flops = traced_flops;
  return in;
}

std::string table(const ProjectionRow& row) {
  std::ostringstream out;
  print_projection({row}, ProjectionLabels{}, std::nullopt, out);
  return out.str();
}

TEST(ProjectTracedFlops, KnownFlopsGiveTflopsAndMfu) {
  const ProjectionRow row = project_nodes(trace_inputs(3e14), 2);
  ASSERT_GT(row.step_ms, 0);
  ASSERT_TRUE(row.tflops_per_gpu && row.mfu);
  EXPECT_NEAR(*row.tflops_per_gpu, 3e14 / (row.step_ms * 1e9), 1e-9);
  EXPECT_NEAR(*row.mfu, *row.tflops_per_gpu / 989.4, 1e-12);
  char mfu[32];
  std::snprintf(mfu, sizeof mfu, "%.1f%%", *row.mfu * 100);
  EXPECT_NE(table(row).find(mfu), std::string::npos) << table(row);
}

TEST(ProjectTracedFlops, UnknownFlopsPrintADash) {
  const ProjectionRow row = project_nodes(trace_inputs(std::nullopt), 2);
  EXPECT_FALSE(row.tflops_per_gpu);
  EXPECT_FALSE(row.mfu);
  const std::string text = table(row);
  EXPECT_EQ(text.find("0.0%"), std::string::npos) << text;
  EXPECT_EQ(projection_json(row, ProjectionLabels{}, std::nullopt)["mfu"], nullptr);
}

}  // namespace
}  // namespace collreplay::project
