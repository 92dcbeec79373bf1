// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: do BASE's and NEW's samples come from
// the same distribution? Distribution-free, so timing samples with their long right tails need
// no normality; it is the test Google Benchmark's compare.py runs over repetitions. Pure.
#pragma once
#include <span>

namespace collreplay::compare {

struct UTestResult {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting a half
  double p_value = 1;  // two-sided
  bool exact = false;  // from U's exact distribution (no ties, both samples <= kExactMaxSamples)
};

// Up to this many samples per side without ties, p comes from U's exact distribution; beyond it,
// or with ties, from the normal approximation with tie and continuity corrections (good from
// about 8 samples per side).
inline constexpr int kExactMaxSamples = 20;

// Both samples need at least one value (UsageError otherwise); with 3 or fewer on a side no
// difference reaches p < 0.05, however large.
UTestResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

}  // namespace collreplay::compare
