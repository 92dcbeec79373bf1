// How the perf harness samples a size: nccl-tests' fixed -n without --stable; under --stable a
// warm-up and a batch per sample sized to the op, looks at growing sample counts, -n samples at
// most.
#include <gtest/gtest.h>

#include <vector>

#include "bench/perf/timing/perf_samples.hpp"
#include "bench/perf/timing/sampling_plan.hpp"

namespace collreplay {
namespace {

TEST(SamplingPlan, WithoutStableEveryOpIsTimedInOneSampleOrOnePerOp) {
  const SamplingPlan batch = fixed_plan(200, false);  // -I 0: the batch, as nccl-tests
  EXPECT_EQ(batch.ops_per_sample, 200);
  EXPECT_EQ(batch.max_samples, 1u);
  EXPECT_EQ(batch.first_look, 1u);
  EXPECT_EQ(batch.stable_pct, 0);
  const SamplingPlan each = fixed_plan(200, true);  // -I 1, or the MPI backend
  EXPECT_EQ(each.ops_per_sample, 1);
  EXPECT_EQ(each.max_samples, 200u);
  EXPECT_EQ(each.first_look, 200u);
}

TEST(SamplingPlan, StableBatchesSmallOpsToSpanTheSampleSpan) {
  EXPECT_EQ(stable_plan(5, 200, 1, false).ops_per_sample, 40);  // 200 us / 5 us
  EXPECT_EQ(stable_plan(7, 200, 1, false).ops_per_sample, 29);  // rounded up
  EXPECT_EQ(stable_plan(kSampleSpanUs, 200, 1, false).ops_per_sample, 1);
  EXPECT_EQ(stable_plan(2800, 200, 1, false).ops_per_sample, 1);
  EXPECT_EQ(stable_plan(0.001, 200, 1, false).ops_per_sample, kMaxOpsPerSample);
  EXPECT_EQ(stable_plan(0, 200, 1, false).ops_per_sample, kMaxOpsPerSample);
  EXPECT_EQ(stable_plan(5, 200, 1, true).ops_per_sample, 1);  // -I 1 keeps one op per sample
}

TEST(SamplingPlan, StableCapsSamplesAtNAndLooksFirstAtTheMinimum) {
  const SamplingPlan plan = stable_plan(5, 200, 0.5, false);
  EXPECT_EQ(plan.max_samples, 200u);  // -n counts samples under --stable
  EXPECT_EQ(plan.first_look, kMinStableSamples);
  EXPECT_DOUBLE_EQ(plan.stable_pct, 0.5);
  EXPECT_EQ(stable_plan(5, 4, 1, false).first_look, 4u);  // -n below the minimum
}

TEST(SamplingPlan, LooksComeAfterEveryFurtherQuarterAtLeastFive) {
  EXPECT_EQ(next_look(10, 200), 15u);
  EXPECT_EQ(next_look(40, 200), 50u);
  EXPECT_EQ(next_look(100, 200), 125u);
  EXPECT_EQ(next_look(190, 200), 200u);  // never past -n
  std::vector<std::size_t> looks{kMinStableSamples};
  while (looks.back() < 200) looks.push_back(next_look(looks.back(), 200));
  EXPECT_LE(looks.size(), 14u);  // each look is a cross-rank exchange: few of them
}

TEST(SamplingPlan, WarmUpIsOneOpForLargeSizesAndUpToWForSmallOnes) {
  EXPECT_EQ(extra_warmup_ops(2800, 10), 0);  // a 4 GiB op: its first op is warm-up enough
  EXPECT_EQ(extra_warmup_ops(700, 10), 2);   // 2 ms of ops after the first
  EXPECT_EQ(extra_warmup_ops(30, 10), 9);    // -w caps the total
  EXPECT_EQ(extra_warmup_ops(30, 1), 0);
  EXPECT_EQ(extra_warmup_ops(30, 0), 0);  // --stable warms up with one op even at -w 0
  EXPECT_EQ(extra_warmup_ops(0, 10), 9);
}

// The stopping rule on batch means: quiet samples stop at the first look, a spread wider than
// PCT keeps sampling.
TEST(SamplingPlan, StableStopsOnceTheMedianIntervalIsWithinPct) {
  std::vector<double> samples;
  for (int i = 0; i < static_cast<int>(kMinStableSamples); ++i) samples.push_back(100 + i % 2);
  EXPECT_TRUE(median_is_stable(summarize_samples(samples), 1));
  EXPECT_FALSE(median_is_stable(summarize_samples(samples), 0.4));
}

}  // namespace
}  // namespace collreplay
