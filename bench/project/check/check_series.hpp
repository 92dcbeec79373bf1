// The arithmetic of `project --check`: a series' points (real and projected tokens/s per GPU at
// each node count) as ratios to the series' first point (its fewest nodes), the error in points
// (projected ratio - real ratio, x 100) and the verdict against the series' band. Pure: no
// projection here, so the rules can be tested by hand.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/project/check/published_fixture.hpp"

namespace collreplay::project {

struct SeriesPoint {
  int nodes = 0, world = 0;
  double real_tokens_per_s_per_gpu = 0, projected_tokens_per_s_per_gpu = 0;
  // The number project computes for the band's term at this point (an unmatched series, or a
  // point beyond its band when the band names a term); nullopt when project has no such term.
  std::optional<double> term_value;
  // How much longer the real step is than the projected one, at the projection's speed of the
  // series' first point (ms): tokens per GPU step / (projected first x real ratio) - projected
  // step. What the term has to explain; nullopt when not computed.
  std::optional<double> gap_ms;
  std::string where;  // the fixture row
};

struct CheckedPoint {
  SeriesPoint point;
  double real_ratio = 1, projected_ratio = 1;
  double error_points = 0;  // (projected_ratio - real_ratio) x 100
  bool within = true;       // |error| <= the band (always true for absolute and unmatched series)
  bool explained = false;   // beyond the band, and the band's term explains it (its value > 0)
};

struct SeriesCheck {
  std::string series;
  SeriesBand band;
  std::vector<CheckedPoint> points;  // by node count; the first is the reference
  bool passed = true;
  bool explained = false;  // passed with points beyond the band that its term explains
  std::string why;         // when not passed: what failed
};

// Points sorted by nodes, ratios to the first. Passed (a points band): two or more points (a
// missing row fails) and every error within the band, or beyond it where the band names a term
// whose value at that point is positive ("explained, unmatched"; no term or no value fails) and
// the values at the points it explains lie within 1.5 x of each other (one number); an
// absolute series always; an unmatched series when every point has the term and some point after
// the first has a non-zero value (project computes it and it says something).
SeriesCheck check_series(const std::string& series, const SeriesBand& band,
                         std::vector<SeriesPoint> points);

}  // namespace collreplay::project
