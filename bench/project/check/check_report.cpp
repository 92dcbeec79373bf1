#include "bench/project/check/check_report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>

#include "bench/project/check/check_terms.hpp"

namespace collreplay::project {
namespace {

std::string formatted(const char* format, auto... values) {
  char line[512];
  std::snprintf(line, sizeof line, format, values...);
  return line;
}

bool has_ratio(const SeriesCheck& s) { return s.band.kind == SeriesBand::Kind::points; }

std::string band_text(const SeriesBand& band) {
  switch (band.kind) {
    case SeriesBand::Kind::points: return formatted("%g", band.points);
    case SeriesBand::Kind::absolute: return "absolute";
    case SeriesBand::Kind::reported: return "reported";
  }
  return "";
}

std::string verdict(const SeriesCheck& s, const CheckedPoint& p, bool first) {
  if (first) return "first";
  if (!has_ratio(s)) return band_text(s.band);
  return p.within ? "ok" : "OUT";
}

void print_points(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# project --check: tokens/s per GPU, real (published) and projected; ratio = per GPU "
         "against the series' first point; error = projected - real ratio, in points; [lo, hi] = "
         "the projection's interval on its ratio, in = the real ratio inside it; role: declared "
         "(calibrates the intervals) or held out; gap_ms = the real step at the projection's "
         "first-point speed less the projected step\n";
  out << formatted("%-18s %5s %5s %8s %9s %7s %7s %7s %15s %3s %-8s %8s %-8s %s\n", "series",
                   "nodes", "GPUs", "real", "projected", "real_r", "proj_r", "err_pt",
                   "[lo, hi]", "in", "role", "gap_ms", "band", "verdict");
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const CheckedPoint& p = s.points[i];
      const bool ratio = has_ratio(s) && i > 0;
      const std::string interval =
          ratio ? formatted("[%.3f, %.3f]", p.ratio_lo, p.ratio_hi) : std::string("-");
      const std::string in = !ratio ? "-" : p.covered ? "yes" : "no";
      const std::string role = i == 0 ? "-" : p.point.declared ? "declared" : "held_out";
      // The first point's gap is 0 by construction (printed +0.0, not its rounding's -0.0).
      const std::string gap =
          p.point.gap_ms ? formatted("%+8.1f", i == 0 ? 0.0 : *p.point.gap_ms) : "       -";
      out << formatted("%-18s %5d %5d %8.0f %9.0f %7.3f %7.3f %+7.1f %15s %3s %-8s %s %-8s %s\n",
                       s.series.c_str(), p.point.nodes, p.point.world,
                       p.point.real_tokens_per_s_per_gpu, p.point.projected_tokens_per_s_per_gpu,
                       p.real_ratio, p.projected_ratio, p.error_points, interval.c_str(),
                       in.c_str(), role.c_str(), gap.c_str(), band_text(s.band).c_str(),
                       verdict(s, p, i == 0).c_str());
    }
  }
}

void print_first_points(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# first points: absolute tokens/s per GPU (no band: the software stacks differ)\n";
  out << formatted("%-18s %6s %10s %10s %9s  %s\n", "series", "nodes", "real", "projected",
                   "proj/real", "compute");
  for (const CheckedSeries& cs : series) {
    if (cs.check.points.empty()) continue;
    const SeriesPoint& p = cs.check.points.front().point;
    out << formatted("%-18s %6d %10.0f %10.0f %9.3f  %s\n", cs.check.series.c_str(), p.nodes,
                     p.real_tokens_per_s_per_gpu, p.projected_tokens_per_s_per_gpu,
                     p.projected_tokens_per_s_per_gpu / p.real_tokens_per_s_per_gpu,
                     cs.compute.c_str());
  }
}

// Beside every point after the first of a series whose band names a term: the gap and the term's
// number, as a diagnosis (points series) or the reported figure.
void print_terms(const std::vector<CheckedSeries>& series, std::ostream& out) {
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    if (s.band.term.empty()) continue;
    const bool reported = s.band.kind == SeriesBand::Kind::reported;
    for (std::size_t i = 1; i < s.points.size(); ++i) {
      const CheckedPoint& p = s.points[i];
      out << "# " << s.series << ", " << p.point.nodes << " nodes ("
          << (reported ? "reported, not judged" : formatted("%+.1f points, %s", p.error_points,
                                                             p.within ? "in band" : "OUT"))
          << "): ";
      if (p.point.gap_ms)
        out << formatted("the real step is %.1f ms %s than %d x %s gives; ",
                         std::fabs(*p.point.gap_ms), *p.point.gap_ms >= 0 ? "longer" : "shorter",
                         p.point.nodes, cs.fabric.c_str());
      out << (reported ? "project's " : "diagnosis: would need ") << s.band.term << " = "
          << (p.point.term_value ? formatted("%.2f", *p.point.term_value) : std::string("-"))
          << " " << term_meaning(s.band.term) << "\n";
    }
  }
}

void print_series_errors(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# per series: error in points at every point after the first (d = declared, h = held "
         "out), the worst, the band and the verdict\n";
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    std::string errors;
    for (std::size_t i = 1; i < s.points.size(); ++i)
      errors += formatted("%s%d:%+.1f%s", errors.empty() ? "" : " ", s.points[i].point.nodes,
                          s.points[i].error_points, s.points[i].point.declared ? "d" : "h");
    const std::string verdict =
        !s.judged ? "not judged" : s.passed ? "pass" : "FAIL";
    out << formatted("#   %-18s %-40s worst %+6.1f  band %-8s %s\n", s.series.c_str(),
                     errors.empty() ? "-" : errors.c_str(), s.worst_error_points,
                     band_text(s.band).c_str(), verdict.c_str());
  }
}

void print_coverage(const CheckReport& report, std::ostream& out) {
  out << "# intervals: " << calibration_text(report.calibration) << "\n";
  std::map<std::string, std::pair<int, int>> by_band;  // band -> (inside, held-out points)
  int inside = 0, held = 0;
  for (const CheckedSeries& cs : report.series) {
    if (!has_ratio(cs.check)) continue;
    for (std::size_t i = 1; i < cs.check.points.size(); ++i) {
      const CheckedPoint& p = cs.check.points[i];
      if (p.point.declared) continue;
      auto& [in, all] = by_band[band_text(cs.check.band)];
      in += p.covered;
      ++all;
      inside += p.covered;
      ++held;
    }
  }
  out << "# held-out points inside their interval: " << inside << " of " << held;
  for (const auto& [band, counts] : by_band)
    out << "; band " << band << ": " << counts.first << " of " << counts.second;
  out << "\n";
}

}  // namespace

void print_check(const CheckReport& report, std::ostream& out) {
  const std::vector<CheckedSeries>& series = report.series;
  print_points(series, out);
  print_first_points(series, out);
  print_terms(series, out);
  print_series_errors(series, out);
  print_coverage(report, out);
  int judged = 0, passed = 0;
  for (const CheckedSeries& cs : series) {
    judged += cs.check.judged;
    passed += cs.check.judged && cs.check.passed;
  }
  out << "# " << passed << " of " << judged << " judged series pass";
  if (series.size() > static_cast<std::size_t>(judged))
    out << "; " << series.size() - judged << " reported without a band (not judged)";
  out << "\n";
  for (const CheckedSeries& cs : series)
    if (cs.check.judged && !cs.check.passed)
      out << "# FAILED " << cs.check.series << ": " << cs.check.why << "\n";
  std::vector<MemoryVerdict> memory;
  for (const CheckedSeries& cs : series)
    memory.insert(memory.end(), cs.memory.begin(), cs.memory.end());
  print_memory_verdicts(memory, out);
}

}  // namespace collreplay::project
