// Per-iteration statistics of the perf executables and the --stable stopping rule.
#include <gtest/gtest.h>

#include <vector>

#include "bench/perf/timing/perf_samples.hpp"

namespace collreplay {
namespace {

TEST(PerfSamples, SummaryOfKnownValues) {
  const std::vector<double> v{5, 1, 4, 2, 3};
  const SampleSummary s = summarize_samples(v);
  EXPECT_EQ(s.samples, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.p95, 4.8);       // numpy.percentile(v, 95)
  EXPECT_NEAR(s.cv, 0.527046, 1e-6);  // sample standard deviation sqrt(2.5) over the mean 3
  // Too few samples for an order-statistic interval: the whole range.
  EXPECT_DOUBLE_EQ(s.p50_ci_lo, 1);
  EXPECT_DOUBLE_EQ(s.p50_ci_hi, 5);
  EXPECT_EQ(summarize_samples(std::vector<double>{}).samples, 0u);
  EXPECT_DOUBLE_EQ(summarize_samples(std::vector<double>{7}).cv, 0);
}

TEST(PerfSamples, MedianIntervalUsesOrderStatistics) {
  // 100 samples 1..100: j = floor(50 - 9.8) = 40, k = ceil(51 + 9.8) = 61 (1-based).
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const SampleSummary s = summarize_samples(v);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_DOUBLE_EQ(s.p50_ci_lo, 40);
  EXPECT_DOUBLE_EQ(s.p50_ci_hi, 61);
  EXPECT_FALSE(median_is_stable(s, 20));  // 50.5 - 40 = 10.5 is 20.8% of the p50
  EXPECT_TRUE(median_is_stable(s, 21));
}

TEST(PerfSamples, StableNeedsEnoughSamplesAndLowNoise) {
  std::vector<double> quiet(kMinStableSamples - 1, 100.0);
  EXPECT_FALSE(median_is_stable(summarize_samples(quiet), 5));  // too few to know
  quiet.push_back(100.0);
  EXPECT_TRUE(median_is_stable(summarize_samples(quiet), 5));
  std::vector<double> noisy;
  for (int i = 0; i < 40; ++i) noisy.push_back(i % 2 ? 100.0 : 200.0);
  EXPECT_FALSE(median_is_stable(summarize_samples(noisy), 5));
}

}  // namespace
}  // namespace collreplay
