#include "bench/project/check/check_series.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace collreplay::project {
namespace {

// Tolerance for a band edge: fixtures write errors to 0.1 point.
constexpr double kEdgePoints = 1e-9;

void fail(SeriesCheck& check, const std::string& why) {
  if (!check.passed) return;  // the first failure is the one named
  check.passed = false;
  check.why = why;
}

void judge_points(SeriesCheck& check) {
  if (check.points.size() < 2) fail(check, "one point: a ratio needs two (a row is missing)");
  for (CheckedPoint& p : check.points) {
    p.within = std::fabs(p.error_points) <= check.band.points + kEdgePoints;
    if (p.within) continue;
    std::ostringstream why;
    why << p.point.nodes << " nodes off by " << std::showpos << std::fixed
        << std::setprecision(1) << p.error_points << std::noshowpos << std::defaultfloat << " points (band "
        << check.band.points << ")";
    fail(check, why.str());
  }
}

}  // namespace

SeriesCheck check_series(const std::string& series, const SeriesBand& band,
                         std::vector<SeriesPoint> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const SeriesPoint& a, const SeriesPoint& b) { return a.nodes < b.nodes; });
  SeriesCheck check;
  check.series = series;
  check.band = band;
  check.judged = band.kind != SeriesBand::Kind::reported;
  if (points.empty()) return check;
  const double real_first = points.front().real_tokens_per_s_per_gpu;
  const double projected_first = points.front().projected_tokens_per_s_per_gpu;
  for (const SeriesPoint& p : points) {
    CheckedPoint c;
    c.point = p;
    c.real_ratio = p.real_tokens_per_s_per_gpu / real_first;
    c.projected_ratio = projected_first > 0 ? p.projected_tokens_per_s_per_gpu / projected_first : 0;
    c.error_points = (c.projected_ratio - c.real_ratio) * 100;
    if (std::fabs(c.error_points) > std::fabs(check.worst_error_points))
      check.worst_error_points = c.error_points;
    check.points.push_back(c);
  }
  if (band.kind == SeriesBand::Kind::points) judge_points(check);
  return check;
}

}  // namespace collreplay::project
