// BASE against NEW, time by time: the change of each paired record's times and whether it is
// real (the U test over the per-iteration samples, where both records carry them), judged
// against the gate's threshold. Pure.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/compare/mann_whitney.hpp"
#include "records/pairing.hpp"

namespace collreplay::compare {

struct Gate {
  double threshold_pct = 5;  // a change smaller than this is no regression, however certain
  double alpha = 0.05;       // a change whose p is not below this may be noise
};

enum class Verdict {
  slower,    // beyond the threshold, p < alpha: what fails the gate
  faster,    // beyond the threshold the other way, p < alpha
  same,      // within the threshold, or not significant
  untested,  // a side carries no samples: the change is shown, never judged
};
std::string_view verdict_name(Verdict v);

struct PairedTime {
  std::string measurement;  // the pair's key in words (records::describe)
  std::string metric;
  double base = 0, candidate = 0;
  std::optional<double> change_pct;  // (NEW - BASE) / BASE; none when BASE is 0 and NEW not
  std::optional<UTestResult> test;   // none: a side has no samples
  std::size_t base_samples = 0, candidate_samples = 0;
  Verdict verdict = Verdict::untested;
};

// Every time of every pair, in BASE's order. UsageError (file:line) for a malformed record.
std::vector<PairedTime> compare_pairs(const std::vector<records::RecordPair>& pairs,
                                      const Gate& gate);

}  // namespace collreplay::compare
