// TFLOP/s and MFU of a step, and how they print: a known figure as a number, an unknown one (a
// trace taken without shapes) as "-", never 0.0%.
#include "bench/replay/flops/step_flops.hpp"

#include <gtest/gtest.h>

#include "tests/unit/replay/replay_schedule_fixture.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

TEST(StepFlops, KnownTracedFlopsGiveTflopsAndMfu) {
  // 4.2e12 FLOPs in a 10 ms step: 420 TFLOP/s; on a 1000 TFLOP/s peak, 42%.
  const StepFlops f = traced_step_flops(4.2e12);
  ASSERT_TRUE(f.model && f.hardware);
  const std::optional<double> tflops = tflops_per_s(f.model, 10);
  ASSERT_TRUE(tflops);
  EXPECT_DOUBLE_EQ(*tflops, 420);
  const std::optional<double> mfu = flops_utilization(f.model, 10, 1000.0);
  ASSERT_TRUE(mfu);
  EXPECT_DOUBLE_EQ(*mfu, 0.42);
  EXPECT_EQ(figure_text(mfu, "%.1f%%", 100), "42.0%");
  EXPECT_EQ(figure_text(tflops, "%.1f"), "420.0");
}

TEST(StepFlops, UnknownFlopsPrintADashNeverZero) {
  const StepFlops f = traced_step_flops(std::nullopt);
  EXPECT_FALSE(f.model);
  EXPECT_FALSE(tflops_per_s(f.model, 10));
  EXPECT_FALSE(flops_utilization(f.hardware, 10, 1000.0));
  EXPECT_EQ(figure_text(flops_utilization(f.hardware, 10, 1000.0), "%.1f%%", 100), "-");
  // Known FLOPs without a peak or a time: no MFU either.
  EXPECT_FALSE(flops_utilization(1e12, 10, std::nullopt));
  EXPECT_FALSE(tflops_per_s(1e12, 0));
}

TEST(StepFlops, BuiltScheduleCountsItsGemms) {
  const Schedule s = testing::two_unit_schedule(8, 64);
  const StepFlops f = schedule_step_flops(s);
  ASSERT_TRUE(f.hardware);
  EXPECT_DOUBLE_EQ(*f.hardware, schedule_totals(s).flops);
  ASSERT_TRUE(f.model);
}

}  // namespace
}  // namespace collreplay
