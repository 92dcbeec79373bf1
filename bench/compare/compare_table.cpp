#include "bench/compare/compare_table.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

namespace collreplay::compare {
namespace {

std::string number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::size_t count(const std::vector<PairedTime>& times, Verdict v) {
  return static_cast<std::size_t>(std::count_if(
      times.begin(), times.end(), [v](const PairedTime& t) { return t.verdict == v; }));
}

}  // namespace

void print_compare_table(const std::vector<PairedTime>& times, const Gate& gate,
                         std::ostream& out) {
  out << "| measurement | metric | BASE | NEW | change | p | samples | verdict |\n"
      << "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const PairedTime& t : times) {
    out << "| " << t.measurement << " | " << t.metric << " | " << number("%.4g", t.base) << " | "
        << number("%.4g", t.candidate) << " | "
        << (t.change_pct ? number("%+.1f%%", *t.change_pct) : std::string("n/a")) << " | "
        << (t.test ? number("%.3g", t.test->p_value) : std::string("-")) << " | " << t.base_samples
        << "/" << t.candidate_samples << " | " << verdict_name(t.verdict) << " |\n";
  }
  const std::string beyond = number("%g", gate.threshold_pct) + "% at p < " +
                             number("%g", gate.alpha) + " (Mann-Whitney U, two-sided)";
  out << "\n"
      << count(times, Verdict::slower) << " of " << times.size() << " slower by more than "
      << beyond << "; " << count(times, Verdict::faster) << " faster.\n";
  if (const std::size_t untested = count(times, Verdict::untested))
    out << untested
        << " not tested: a side carries no per-iteration samples (unit records, or records "
           "written before time_samples_us / step_samples_ms); their change is shown, never "
           "judged.\n";
}

}  // namespace collreplay::compare
