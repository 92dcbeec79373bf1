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
  // The number project computes for the band's term at this point (unmatched series); nullopt
  // when project has no such term.
  std::optional<double> term_value;
  std::string where;  // the fixture row
};

struct CheckedPoint {
  SeriesPoint point;
  double real_ratio = 1, projected_ratio = 1;
  double error_points = 0;  // (projected_ratio - real_ratio) x 100
  bool within = true;       // |error| <= the band (always true for absolute and unmatched series)
};

struct SeriesCheck {
  std::string series;
  SeriesBand band;
  std::vector<CheckedPoint> points;  // by node count; the first is the reference
  bool passed = true;
  std::string why;  // when not passed: what failed
};

// Points sorted by nodes, ratios to the first. Passed: every error within the band (points); an
// absolute series always; an unmatched series when every point has the term and some point after
// the first has a non-zero value (project computes it and it says something).
SeriesCheck check_series(const std::string& series, const SeriesBand& band,
                         std::vector<SeriesPoint> points);

}  // namespace collreplay::project
