// The U test's p-values against values worked out by hand (exact: orderings counted) and by the
// normal approximation's formula, and the properties the gate relies on.
#include <gtest/gtest.h>

#include <vector>

#include "bench/compare/mann_whitney.hpp"
#include "common/errors.hpp"

namespace collreplay::compare {
namespace {

TEST(CompareMannWhitney, ExactPForSeparatedSamplesCountsTheOrderings) {
  // All of a below all of b: 1 of C(10, 5) = 252 orderings gives U = 0; two-sided 2/252.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  const UTestResult r = mann_whitney_u(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_u(b, a).p_value, r.p_value, 1e-12) << "two-sided: symmetric";
  EXPECT_EQ(mann_whitney_u(b, a).u, 25);
}

TEST(CompareMannWhitney, ExactPOfAnInterleavedOrdering) {
  // a = {1, 4}, b = {2, 3}: U = 2 (4 beats both), the middle of 0..4; counts 1 1 2 1 1 over
  // C(4, 2) = 6 orderings, so P(U <= 2) = 4/6 and two-sided p = 1.
  const std::vector<double> a = {1, 4}, b = {2, 3};
  EXPECT_EQ(mann_whitney_u(a, b).u, 2);
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, b).p_value, 1.0);
  // a = {3, 4}, b = {1, 2}: U = 4, P(U >= 4) = 1/6, p = 1/3.
  const std::vector<double> c = {3, 4}, d = {1, 2};
  EXPECT_NEAR(mann_whitney_u(c, d).p_value, 1.0 / 3, 1e-12);
}

TEST(CompareMannWhitney, ThreeSamplesASideNeverReachFivePercent) {
  const std::vector<double> a = {1, 2, 3}, b = {100, 200, 300};
  EXPECT_NEAR(mann_whitney_u(a, b).p_value, 2.0 / 20, 1e-12);
  const std::vector<double> four_a = {1, 2, 3, 4}, four_b = {100, 200, 300, 400};
  EXPECT_LT(mann_whitney_u(four_a, four_b).p_value, 0.05);
}

TEST(CompareMannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  // U = 18.5; ties at 2 (x3), 4, 6, 8 (x2 each); z = (|18.5 - 50| - 0.5) / sqrt(variance).
  const std::vector<double> a = {1, 2, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<double> b = {2, 4, 6, 8, 10, 12, 14, 16, 18, 20};
  const UTestResult r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 18.5);
  EXPECT_NEAR(r.p_value, 0.0187951, 1e-6);
}

TEST(CompareMannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 25; ++i) {
    a.push_back(i);
    b.push_back(i + 0.5);  // interleaved: no difference
  }
  const UTestResult r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_GT(r.p_value, 0.5);
  for (double& v : b) v += 100;  // wholly above
  EXPECT_LT(mann_whitney_u(a, b).p_value, 1e-8);
}

TEST(CompareMannWhitney, EqualSamplesGivePOne) {
  const std::vector<double> a = {5, 5, 5, 5}, b = {5, 5, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, b).p_value, 1.0);
}

TEST(CompareMannWhitney, AnEmptySideIsAUsageError) {
  const std::vector<double> a = {1, 2}, none;
  EXPECT_THROW(mann_whitney_u(a, none), UsageError);
  EXPECT_THROW(mann_whitney_u(none, a), UsageError);
}

}  // namespace
}  // namespace collreplay::compare
