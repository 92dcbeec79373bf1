// Fitting recovers known latency and bandwidth from synthetic points, with and without noise, and
// refuses data it cannot fit.
#include <gtest/gtest.h>

#include "bench/project/model/fit.hpp"
#include "bench/project/model/least_squares.hpp"
#include "common/errors.hpp"
#include "tests/support/project_synthetic.hpp"

namespace collreplay::project {
namespace {

constexpr double KiB = 1024.0;

// Points of `truth` for all-gather and reduce-scatter, 64 KiB .. 1 GiB, on the given spans.
std::vector<MeasuredPoint> points_of(const FabricModel& truth, const std::vector<GroupSpan>& spans,
                                     double noise) {
  synthetic::Noise jitter(noise, 11);
  std::vector<MeasuredPoint> points;
  for (const GroupSpan& span : spans)
    for (CollKind kind : {CollKind::all_gather, CollKind::reduce_scatter})
      for (double bytes = 64 * KiB; bytes <= 1024 * KiB * KiB; bytes *= 4) {
        MeasuredPoint p;
        p.kind = kind;
        p.bytes = bytes;
        p.span = span;
        p.run_nodes = span.nodes;
        p.time_us = predict(kind, bytes, span, truth).time_us * jitter();
        points.push_back(p);
      }
  return points;
}

FabricModel plain_truth() {
  FabricModel m;
  m.base_us = 10;
  m.intra = TierParams{0.8, 300, 0, 1};
  m.inter = TierParams{4, 45, 0, 1};
  m.pat_allowed = m.tree_allowed = false;
  return m;
}

const std::vector<GroupSpan> kSpans{{2, 1}, {4, 1}, {8, 1}, {16, 2}, {32, 4}, {64, 8}};

TEST(ProjectFit, RecoversAlphaBetaExactlyWithoutNoise) {
  const FabricModel truth = plain_truth();
  const FitReport fit = fit_fabric(points_of(truth, kSpans, 0), std::nullopt, 1);
  EXPECT_NEAR(fit.model.base_us, 10, 1e-6);
  EXPECT_NEAR(fit.model.intra.alpha_us, 0.8, 1e-6);
  EXPECT_NEAR(fit.model.intra.bw_gbyte_s, 300, 1e-6);
  EXPECT_NEAR(fit.model.inter.alpha_us, 4, 1e-6);
  EXPECT_NEAR(fit.model.inter.bw_gbyte_s, 45, 1e-6);
  EXPECT_EQ(fit.model.inter.half_bytes, 0);
  EXPECT_NEAR(fit.ratio_lo, 1, 1e-9);
  EXPECT_NEAR(fit.ratio_hi, 1, 1e-9);
  EXPECT_TRUE(fit.notes.empty());
  EXPECT_EQ(fit.node_counts, (std::vector<int>{1, 2, 4, 8}));
}

TEST(ProjectFit, RecoversBandwidthAndCurveWithNoise) {
  FabricModel truth = plain_truth();
  truth.inter.half_bytes = 256 * KiB;  // on the grid
  truth.inter.gamma = 0.7;
  const FitReport fit = fit_fabric(points_of(truth, kSpans, 0.03), std::nullopt, 1);
  EXPECT_NEAR(fit.model.intra.bw_gbyte_s, 300, 300 * 0.05);
  EXPECT_NEAR(fit.model.inter.bw_gbyte_s, 45, 45 * 0.08);
  EXPECT_NEAR(fit.model.inter.alpha_us, 4, 4 * 0.5);
  // The band holds the noise: measured / predicted within the +-3% it was made with, give or take.
  EXPECT_LE(fit.ratio_lo, 1.0);
  EXPECT_GE(fit.ratio_hi, 1.0);
  EXPECT_GT(fit.ratio_lo, 0.95);
  EXPECT_LT(fit.ratio_hi, 1.05);
  // Predictions at an unmeasured node count stay within a few percent for large messages.
  const double bytes = 512 * KiB * KiB;
  const double want = predict(CollKind::all_gather, bytes, {512, 64}, truth).time_us;
  EXPECT_NEAR(predict(CollKind::all_gather, bytes, {512, 64}, fit.model).time_us, want,
              want * 0.05);
}

TEST(ProjectFit, OneGpuPerNodeFitsBaseWithTheInterTier) {
  FabricModel truth = plain_truth();
  const FitReport fit = fit_fabric(points_of(truth, {{2, 2}, {4, 4}, {8, 8}}, 0), std::nullopt, 1);
  EXPECT_NEAR(fit.model.base_us, 10, 1e-6);
  EXPECT_NEAR(fit.model.inter.alpha_us, 4, 1e-6);
  EXPECT_NEAR(fit.model.inter.bw_gbyte_s, 45, 1e-6);
  EXPECT_FALSE(fit.intra_fitted);
}

TEST(ProjectFit, ReportedAlgorithmIsUsedAndRecorded) {
  FabricModel truth = plain_truth();
  truth.pat_allowed = true;
  std::vector<MeasuredPoint> points = points_of(truth, {{4, 4}, {8, 8}, {16, 16}}, 0);
  for (MeasuredPoint& p : points) p.algo_reported = Algo::pat;
  const FitReport fit = fit_fabric(points, std::nullopt, 1);
  EXPECT_TRUE(fit.model.pat_allowed);
  ASSERT_FALSE(fit.points.empty());
  EXPECT_EQ(fit.points[0].algo, Algo::pat);
  EXPECT_TRUE(fit.points[0].algo_was_reported);
  EXPECT_NEAR(fit.model.inter.alpha_us, 4, 1e-6);
}

TEST(ProjectFit, TwoNodeCountsFitWithANote) {
  const FitReport fit = fit_fabric(points_of(plain_truth(), {{8, 1}, {16, 2}}, 0), std::nullopt, 1);
  bool said = false;
  for (const std::string& note : fit.notes) said |= note.find("3 or more") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ProjectFit, RefusesTooFewNodeCountsAndNoMultiNodePoints) {
  EXPECT_THROW(fit_fabric(points_of(plain_truth(), {{16, 2}}, 0), std::nullopt, 1), UsageError);
  EXPECT_THROW(fit_fabric(points_of(plain_truth(), {{2, 1}, {8, 1}}, 0), std::nullopt, 1),
               UsageError);
  EXPECT_THROW(fit_fabric({}, std::nullopt, 1), UsageError);
  // Multi-GPU nodes need an intra tier from somewhere.
  EXPECT_THROW(fit_fabric(points_of(plain_truth(), {{16, 2}, {32, 4}}, 0), std::nullopt, 1),
               UsageError);
  FabricModel given = plain_truth();
  EXPECT_NO_THROW(fit_fabric(points_of(plain_truth(), {{16, 2}, {32, 4}}, 0), given, 1));
}

TEST(ProjectFit, IntraOnlyFitKeepsTheProfile) {
  FabricModel profile = plain_truth();
  profile.inter = TierParams{2, 400, 0, 1};
  const FitReport fit = fit_intra(points_of(plain_truth(), {{2, 1}, {4, 1}, {8, 1}}, 0), profile);
  EXPECT_NEAR(fit.model.intra.bw_gbyte_s, 300, 1e-6);
  EXPECT_EQ(fit.model.inter.bw_gbyte_s, 400);
  // One rank count: hop latency cannot be told from base latency, and the fit says so.
  const FitReport one = fit_intra(points_of(plain_truth(), {{2, 1}}, 0), profile);
  EXPECT_NEAR(one.model.base_us + one.model.intra.alpha_us, 10.8, 1e-6);
  EXPECT_EQ(one.model.intra.alpha_us, 0);
  EXPECT_EQ(one.notes.size(), 1u);
  EXPECT_THROW(fit_intra(points_of(plain_truth(), {{16, 2}}, 0), profile), UsageError);
}

TEST(ProjectLeastSquares, DropsColumnsThatGoNegativeOrCollinear) {
  // t = 2 + 3 y exactly; column 0 (x = 1 everywhere) is collinear with column 1 (the constant).
  std::vector<double> t, known;
  std::vector<std::vector<double>> x;
  for (double y : {1.0, 2.0, 5.0, 9.0}) {
    t.push_back(2 + 3 * y);
    known.push_back(0);
    x.push_back({1, 1, y});
  }
  const LeastSquares s = fit_nonnegative(t, known, x, {true, true, true});
  ASSERT_TRUE(s.ok);
  EXPECT_NEAR(s.coef[1], 2, 1e-9);  // the earlier-preferred subset keeps the constant
  EXPECT_EQ(s.coef[0], 0);
  EXPECT_NEAR(s.coef[2], 3, 1e-9);
  // Times already exceeded by the known part leave no positive bandwidth.
  const LeastSquares bad = fit_nonnegative({5, 4, 3}, {6, 5, 4}, {{0, 1, 1}, {0, 1, 2}, {0, 1, 3}},
                                           {false, false, true});
  EXPECT_FALSE(bad.ok);
}

}  // namespace
}  // namespace collreplay::project
