// Per-iteration times of one size: the summary the JSONL carries (min, p50, p95, max,
// coefficient of variation, as recent nccl-tests reports), the distribution-free 95% confidence
// interval of the median that --stable PCT stops on, and the element-wise cross-rank combination
// of a rank's samples. All but combine_samples_across_ranks are pure.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

#include "bench/app/rank_stats.hpp"

namespace collreplay {

struct SampleSummary {
  std::size_t samples = 0;
  double mean = 0, min = 0, p50 = 0, p95 = 0, max = 0;
  double cv = 0;  // standard deviation / mean (sample standard deviation; 0 for < 2 samples)
  // 95% confidence interval of the median from order statistics (binomial, normal
  // approximation); equal to [min, max] while there are too few samples to say more.
  double p50_ci_lo = 0, p50_ci_hi = 0;
};

SampleSummary summarize_samples(std::span<const double> values);

// Fewest samples before --stable may stop: below this the order-statistic interval is [min, max].
inline constexpr std::size_t kMinStableSamples = 10;

// True when the p50's 95% confidence interval lies within +-pct percent of the p50.
bool median_is_stable(const SampleSummary& summary, double pct);

// Replaces `values` (one per iteration, the same length on every rank) with the per-iteration
// max, mean or min over the ranks of `comm`; collective, and a TimeoutError after timeout_s
// (0: none) when a rank never arrives.
void combine_samples_across_ranks(std::vector<double>& values, RankReduce how, MPI_Comm comm,
                                  double timeout_s = 0);

}  // namespace collreplay
