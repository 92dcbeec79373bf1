// The intervals on projected per-GPU figures (bench/project/interval/scaling_interval.hpp): the
// width from declared rows' errors (the largest |error| / sqrt(doublings)), the distance
// extrapolated (doublings of the GPU count, and again beyond measured node counts), and every
// projection row's per_gpu_vs_first and tokens/s per GPU with their intervals.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/project/interval/scaling_interval.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

TEST(ProjectInterval, TheWidthIsTheLargestDeclaredErrorPerRootDoubling) {
  // +1.0 at one doubling, -3.0 at four (1.5 per root doubling), the first point skipped.
  const IntervalCalibration c = calibrate_interval(
      {{0, 0, "first"}, {1, 1.0, "a"}, {4, -3.0, "b"}, {2, 0.5, "c"}}, "test rows");
  EXPECT_EQ(c.declared_rows, 3);
  EXPECT_DOUBLE_EQ(c.points_per_root_doubling, 1.5);
  EXPECT_NE(calibration_text(c).find("+-1.50 points"), std::string::npos) << calibration_text(c);
  EXPECT_NE(calibration_text(c).find("3 declared rows of test rows"), std::string::npos);
  EXPECT_THROW(calibrate_interval({{0, 0, "first"}}, "none"), UsageError);
  EXPECT_THROW(calibrate_interval({}, "none"), UsageError);
}

TEST(ProjectInterval, GrowsWithTheGpuCountRatioAndBeyondTheMeasuredNodes) {
  EXPECT_DOUBLE_EQ(extrapolation_distance(8, 8, 1, 0), 0);
  EXPECT_DOUBLE_EQ(extrapolation_distance(512, 8, 64, 0), 6);
  // Measured to 4 nodes: 16 nodes counts two more doublings.
  EXPECT_DOUBLE_EQ(extrapolation_distance(128, 8, 16, 4), 4 + 2);
  EXPECT_DOUBLE_EQ(extrapolation_distance(32, 8, 4, 4), 2);
  EXPECT_THROW(extrapolation_distance(0, 8, 1, 0), UsageError);
  IntervalCalibration c;
  c.points_per_root_doubling = 2;
  const RatioInterval at1 = ratio_interval(c, 0.95, 1), at4 = ratio_interval(c, 0.95, 4);
  EXPECT_NEAR(at1.lo, 0.93, 1e-12);
  EXPECT_NEAR(at1.hi, 0.97, 1e-12);
  EXPECT_NEAR(at4.hi - at4.lo, 2 * (at1.hi - at1.lo), 1e-12);
  EXPECT_DOUBLE_EQ(ratio_interval(c, 0.01, 100).lo, 0);  // a ratio is never negative
}

ProjectionRow row(int nodes, double tokens_per_s_per_gpu) {
  ProjectionRow r;
  r.nodes = nodes;
  r.world = 8 * nodes;
  r.tokens_per_s_per_gpu = tokens_per_s_per_gpu;
  r.tokens_per_s = tokens_per_s_per_gpu * r.world;
  return r;
}

TEST(ProjectInterval, EveryRowCarriesItsRatioToTheFirstAndBothIntervals) {
  IntervalCalibration c;
  c.points_per_root_doubling = 1;
  std::vector<ProjectionRow> rows = {row(2, 1000), row(8, 980), row(32, 950)};
  apply_intervals(rows, c);
  EXPECT_DOUBLE_EQ(rows[0].per_gpu_vs_first, 1);
  EXPECT_DOUBLE_EQ(rows[0].per_gpu_vs_first_lo, 1);
  EXPECT_DOUBLE_EQ(rows[0].per_gpu_vs_first_hi, 1);
  EXPECT_DOUBLE_EQ(rows[0].tokens_per_s_per_gpu_lo, 1000);
  // 8 nodes: two doublings, +-1.414 points; 32 nodes: four, +-2 points.
  EXPECT_DOUBLE_EQ(rows[1].per_gpu_vs_first, 0.98);
  EXPECT_NEAR(rows[1].per_gpu_vs_first_hi - 0.98, std::sqrt(2.0) / 100, 1e-12);
  EXPECT_NEAR(rows[2].per_gpu_vs_first_lo, 0.93, 1e-12);
  EXPECT_NEAR(rows[2].tokens_per_s_per_gpu_lo, 930, 1e-9);
  EXPECT_NEAR(rows[2].tokens_per_s_per_gpu_hi, 970, 1e-9);
  // A fabric measured to 8 nodes: 32 nodes counts two more doublings (six: +-2.45 points).
  apply_intervals(rows, c, 8);
  EXPECT_NEAR(rows[1].per_gpu_vs_first_hi - 0.98, std::sqrt(2.0) / 100, 1e-12);
  EXPECT_NEAR(rows[2].per_gpu_vs_first_hi - 0.95, std::sqrt(6.0) / 100, 1e-12);
}

}  // namespace
}  // namespace collreplay::project
