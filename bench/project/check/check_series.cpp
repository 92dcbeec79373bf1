#include "bench/project/check/check_series.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace collreplay::project {
namespace {

// Tolerance for a band edge: fixtures write errors to 0.1 point.
constexpr double kEdgePoints = 1e-9;
// One term explains a series with one number: its values at the points it explains may differ by
// at most this factor (largest / smallest), or each point would have its own explanation.
constexpr double kTermSpread = 1.5;

void fail(SeriesCheck& check, const std::string& why) {
  if (!check.passed) return;  // the first failure is the one named
  check.passed = false;
  check.why = why;
}

// The explained points' term values agree (kTermSpread), else the series fails.
void judge_term_spread(SeriesCheck& check) {
  double lo = 0, hi = 0;
  for (const CheckedPoint& p : check.points) {
    if (!p.explained) continue;
    const double v = *p.point.term_value;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > 0 && hi > kTermSpread * lo) {
    std::ostringstream why;
    why << "'" << check.band.term << "' explains its points with values from " << std::fixed
        << std::setprecision(2) << lo << " to " << hi << ", more than " << kTermSpread
        << " x apart: no one number explains the series";
    fail(check, why.str());
  }
}

void judge_points(SeriesCheck& check) {
  if (check.points.size() < 2)
    fail(check, "one point: a ratio needs two (a row is missing)");
  for (CheckedPoint& p : check.points) {
    p.within = std::fabs(p.error_points) <= check.band.points + kEdgePoints;
    if (p.within) continue;
    const std::optional<double>& value = p.point.term_value;
    if (!check.band.term.empty() && value && *value > 0) {
      p.explained = check.explained = true;
      continue;
    }
    std::ostringstream why;
    why << p.point.nodes << " nodes off by " << std::showpos << std::fixed
        << std::setprecision(1) << p.error_points << " points (band " << check.band.text << ")";
    if (!check.band.term.empty())
      why << "; project gives no positive '" << check.band.term << "' for it";
    fail(check, why.str());
  }
  judge_term_spread(check);
  if (!check.passed) check.explained = false;
}

void judge_unmatched(SeriesCheck& check) {
  bool said = false;
  for (std::size_t i = 0; i < check.points.size(); ++i) {
    const std::optional<double>& value = check.points[i].point.term_value;
    if (!value) {
      fail(check, "project does not compute the term '" + check.band.term + "'");
      return;
    }
    said |= i > 0 && *value != 0;
  }
  if (!said)
    fail(check, "project computes '" + check.band.term + "' as 0 beyond the first point: it " +
                    "explains nothing");
}

}  // namespace

SeriesCheck check_series(const std::string& series, const SeriesBand& band,
                         std::vector<SeriesPoint> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const SeriesPoint& a, const SeriesPoint& b) { return a.nodes < b.nodes; });
  SeriesCheck check;
  check.series = series;
  check.band = band;
  if (points.empty()) return check;
  const double real_first = points.front().real_tokens_per_s_per_gpu;
  const double projected_first = points.front().projected_tokens_per_s_per_gpu;
  for (const SeriesPoint& p : points) {
    CheckedPoint c;
    c.point = p;
    c.real_ratio = p.real_tokens_per_s_per_gpu / real_first;
    c.projected_ratio = projected_first > 0 ? p.projected_tokens_per_s_per_gpu / projected_first : 0;
    c.error_points = (c.projected_ratio - c.real_ratio) * 100;
    check.points.push_back(c);
  }
  if (band.kind == SeriesBand::Kind::points) judge_points(check);
  if (band.kind == SeriesBand::Kind::unmatched) judge_unmatched(check);
  return check;
}

}  // namespace collreplay::project
