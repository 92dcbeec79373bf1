#include "bench/project/check/check_report.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

namespace collreplay::project {
namespace {

std::string formatted(const char* format, auto... values) {
  char line[256];
  std::snprintf(line, sizeof line, format, values...);
  return line;
}

std::string verdict(const SeriesCheck& s, const CheckedPoint& p, bool first) {
  if (first) return "first";
  switch (s.band.kind) {
    case SeriesBand::Kind::absolute: return "absolute";
    case SeriesBand::Kind::unmatched: return "unmatched";
    case SeriesBand::Kind::points: return p.within ? "ok" : p.explained ? "explained" : "OUT";
  }
  return "";
}

void print_points(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# project --check: tokens/s per GPU, real (published) and projected; ratio = per GPU "
         "against the series' first point; error = projected - real ratio, in points; gap_ms = "
         "the real step at the projection's first-point speed less the projected step\n";
  out << formatted("%-20s %6s %6s %10s %10s %8s %8s %8s %9s %-10s %s\n", "series", "nodes", "GPUs",
                   "real", "projected", "real_r", "proj_r", "err_pt", "gap_ms", "band", "verdict");
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const CheckedPoint& p = s.points[i];
      const std::string band = s.band.kind == SeriesBand::Kind::unmatched ? "unmatched"
                               : s.band.kind == SeriesBand::Kind::points
                                   ? formatted("%g", s.band.points) + (s.band.term.empty() ? "" : "+term")
                                   : s.band.text;
      // The first point's gap is 0 by construction (printed +0.0, not its rounding's -0.0).
      const std::string gap =
          p.point.gap_ms ? formatted("%+9.1f", i == 0 ? 0.0 : *p.point.gap_ms) : "        -";
      out << formatted("%-20s %6d %6d %10.0f %10.0f %8.3f %8.3f %+8.1f %s %-10s %s\n",
                       s.series.c_str(), p.point.nodes, p.point.world,
                       p.point.real_tokens_per_s_per_gpu, p.point.projected_tokens_per_s_per_gpu,
                       p.real_ratio, p.projected_ratio, p.error_points, gap.c_str(), band.c_str(),
                       verdict(s, p, i == 0).c_str());
    }
  }
}

void print_first_points(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# first points: absolute tokens/s per GPU (no band: the software stacks differ)\n";
  out << formatted("%-20s %6s %10s %10s %8s  %s\n", "series", "nodes", "real", "projected",
                   "proj/real", "compute");
  for (const CheckedSeries& cs : series) {
    if (cs.check.points.empty()) continue;
    const SeriesPoint& p = cs.check.points.front().point;
    out << formatted("%-20s %6d %10.0f %10.0f %8.3f  %s\n", cs.check.series.c_str(), p.nodes,
                     p.real_tokens_per_s_per_gpu, p.projected_tokens_per_s_per_gpu,
                     p.projected_tokens_per_s_per_gpu / p.real_tokens_per_s_per_gpu,
                     cs.compute.c_str());
  }
}

// For an unmatched series, and for each point a term explains: the gap and the term's number.
void print_terms(const std::vector<CheckedSeries>& series, std::ostream& out) {
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    if (s.band.term.empty()) continue;
    const bool unmatched = s.band.kind == SeriesBand::Kind::unmatched;
    for (std::size_t i = 1; i < s.points.size(); ++i) {
      const CheckedPoint& p = s.points[i];
      if (!unmatched && p.within) continue;
      out << "# " << s.series << ", " << p.point.nodes << " nodes: ";
      if (p.point.gap_ms)
        out << formatted("the real step is %.1f ms %s than %d x %s explains", std::fabs(*p.point.gap_ms),
                         *p.point.gap_ms >= 0 ? "longer" : "shorter", p.point.nodes, cs.fabric.c_str());
      out << (unmatched ? "; unmatched, project's " : "; consistent with ") << s.band.term << " = "
          << (p.point.term_value ? formatted("%.2f", *p.point.term_value) : std::string("-"))
          << " " << term_meaning(s.band.term) << "\n";
    }
  }
}

}  // namespace

void print_check(const std::vector<CheckedSeries>& series, std::ostream& out) {
  print_points(series, out);
  print_first_points(series, out);
  print_terms(series, out);
  int passed = 0, explained = 0;
  for (const CheckedSeries& cs : series) {
    passed += cs.check.passed ? 1 : 0;
    explained += cs.check.passed &&
                 (cs.check.explained || cs.check.band.kind == SeriesBand::Kind::unmatched);
  }
  out << "# " << passed << " of " << series.size() << " series pass (" << explained
      << " of them explained, unmatched: a term project names, with its number, closes the gap)\n";
  for (const CheckedSeries& cs : series)
    if (!cs.check.passed) out << "# FAILED " << cs.check.series << ": " << cs.check.why << "\n";
}

}  // namespace collreplay::project
