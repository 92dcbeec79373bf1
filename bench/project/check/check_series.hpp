// The arithmetic of `project --check`: a series' points (real and projected tokens/s per GPU at
// each node count) as ratios to the series' first point (its fewest nodes), the error in points
// (projected ratio - real ratio, x 100) and the verdict against the series' band: a point outside
// it fails the series, whatever any term says. Pure: no projection here, so the rules can be
// tested by hand.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/project/check/published_fixture.hpp"

namespace collreplay::project {

struct SeriesPoint {
  int nodes = 0, world = 0;
  double real_tokens_per_s_per_gpu = 0, projected_tokens_per_s_per_gpu = 0;
  // The number project computes for the band's term at this point: a reported series' number, or
  // a points series' diagnosis (what the term would have to be for the projection to reach the
  // real step); nullopt when project has no such term or it does not apply here.
  std::optional<double> term_value;
  // How much longer the real step is than the projected one, at the projection's speed of the
  // series' first point (ms): tokens per GPU step / (projected first x real ratio) - projected
  // step. What a diagnosis has to close; nullopt when not computed.
  std::optional<double> gap_ms;
  bool declared = false;  // an input of the intervals' calibration (fixture role), not held out
  std::string where;      // the fixture row
};

struct CheckedPoint {
  SeriesPoint point;
  double real_ratio = 1, projected_ratio = 1;
  double error_points = 0;  // (projected_ratio - real_ratio) x 100
  bool within = true;       // |error| <= the band (always true for absolute and reported series)
  // The projection's interval on its per-GPU ratio (bench/project/interval), set by the runner
  // once the declared rows have calibrated it, and whether the real ratio lies inside.
  double ratio_lo = 1, ratio_hi = 1;
  bool covered = true;
};

struct SeriesCheck {
  std::string series;
  SeriesBand band;
  std::vector<CheckedPoint> points;  // by node count; the first is the reference
  bool judged = true;                // false: a reported series (no band, no verdict)
  bool passed = true;                // judged series only
  std::string why;                   // when not passed: what failed first
  double worst_error_points = 0;     // the largest |error|, signed
};

// Points sorted by nodes, ratios to the first. A points series passes when it has two or more
// points (a missing row fails) and every error lies within the band; a term named beside the band
// is a diagnosis and changes no verdict. An absolute series (one point) passes; a reported series
// is not judged.
SeriesCheck check_series(const std::string& series, const SeriesBand& band,
                         std::vector<SeriesPoint> points);

}  // namespace collreplay::project
