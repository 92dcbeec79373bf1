#include "bench/project/check/check_report.hpp"

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
    case SeriesBand::Kind::points: return p.within ? "ok" : "OUT";
  }
  return "";
}

void print_points(const std::vector<CheckedSeries>& series, std::ostream& out) {
  out << "# project --check: tokens/s per GPU, real (published) and projected; ratio = per GPU "
         "against the series' first point; error = projected - real ratio, in points\n";
  out << formatted("%-20s %6s %6s %10s %10s %8s %8s %8s %-10s %s\n", "series", "nodes", "GPUs",
                   "real", "projected", "real_r", "proj_r", "err_pt", "band", "verdict");
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const CheckedPoint& p = s.points[i];
      const std::string band = s.band.kind == SeriesBand::Kind::unmatched ? "unmatched" : s.band.text;
      out << formatted("%-20s %6d %6d %10.0f %10.0f %8.3f %8.3f %+8.1f %-10s %s\n",
                       s.series.c_str(), p.point.nodes, p.point.world,
                       p.point.real_tokens_per_s_per_gpu, p.point.projected_tokens_per_s_per_gpu,
                       p.real_ratio, p.projected_ratio, p.error_points, band.c_str(),
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

void print_terms(const std::vector<CheckedSeries>& series, std::ostream& out) {
  for (const CheckedSeries& cs : series) {
    const SeriesCheck& s = cs.check;
    if (s.band.kind != SeriesBand::Kind::unmatched) continue;
    out << "# " << s.series << ": unmatched, explained by " << s.band.term << " (ms per step):";
    for (const CheckedPoint& p : s.points) {
      out << " " << p.point.nodes << " nodes ";
      out << (p.point.term_value ? formatted("%.1f", *p.point.term_value) : std::string("-"));
    }
    out << "\n";
  }
}

}  // namespace

void print_check(const std::vector<CheckedSeries>& series, std::ostream& out) {
  print_points(series, out);
  print_first_points(series, out);
  print_terms(series, out);
  int passed = 0;
  for (const CheckedSeries& cs : series) passed += cs.check.passed ? 1 : 0;
  out << "# " << passed << " of " << series.size() << " series pass\n";
  for (const CheckedSeries& cs : series)
    if (!cs.check.passed) out << "# FAILED " << cs.check.series << ": " << cs.check.why << "\n";
}

}  // namespace collreplay::project
