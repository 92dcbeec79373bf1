#include "bench/compare/paired_times.hpp"

#include "bench/compare/measured_times.hpp"

namespace collreplay::compare {
namespace {

Verdict judge(const PairedTime& t, const Gate& gate) {
  if (!t.test) return Verdict::untested;
  if (!t.change_pct || t.test->p_value >= gate.alpha) return Verdict::same;
  if (*t.change_pct > gate.threshold_pct) return Verdict::slower;
  if (*t.change_pct < -gate.threshold_pct) return Verdict::faster;
  return Verdict::same;
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::slower: return "slower";
    case Verdict::faster: return "faster";
    case Verdict::same: return "same";
    case Verdict::untested: return "untested";
  }
  return "?";
}

std::vector<PairedTime> compare_pairs(const std::vector<records::RecordPair>& pairs,
                                      const Gate& gate) {
  std::vector<PairedTime> times;
  for (const records::RecordPair& pair : pairs) {
    const std::vector<MeasuredTime> base = measured_times(*pair.base);
    const std::vector<MeasuredTime> candidate = measured_times(*pair.candidate);
    const std::string measurement = records::describe(records::key_of(*pair.base));
    // Paired records are of one kind, so their times come in the same order.
    for (std::size_t i = 0; i < base.size() && i < candidate.size(); ++i) {
      PairedTime t;
      t.measurement = measurement;
      t.metric = base[i].metric;
      t.base = base[i].value;
      t.candidate = candidate[i].value;
      if (t.base > 0)
        t.change_pct = (t.candidate - t.base) / t.base * 100;
      else if (t.candidate == 0)
        t.change_pct = 0;
      t.base_samples = base[i].samples.size();
      t.candidate_samples = candidate[i].samples.size();
      if (t.base_samples > 0 && t.candidate_samples > 0)
        t.test = mann_whitney_u(base[i].samples, candidate[i].samples);
      t.verdict = judge(t, gate);
      times.push_back(std::move(t));
    }
  }
  return times;
}

}  // namespace collreplay::compare
