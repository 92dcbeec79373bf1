// The interval on every projected per-GPU figure. A projection's per-GPU ratio to its first node
// count (tokens/s per GPU at N nodes over that at the first) is what a user reads off the figure
// beyond the nodes they have; its error grows with how far it extrapolates. The width comes from
// the projection's own errors on DECLARED rows of the published-cluster fixtures (tests/fixtures/
// published, column `role`): each declared row's error in points (projected ratio - real ratio,
// x 100) at its distance d, in doublings of the GPU count from its series' first point. Errors
// that accumulate independently per doubling grow as sqrt(d), so the interval is
//   ratio -/+ c x sqrt(d) / 100,  c = the largest |error| / sqrt(d) over the declared rows,
// the same on both sides: a handful of rows tells how large the errors run, not which way the
// next cluster's will. Rows not declared are held out: `project --check` reports whether their
// real ratios fall inside.
#pragma once
#include <string>
#include <vector>

#include "bench/project/projection.hpp"

namespace collreplay::project {

// One declared row: its distance (doublings of the GPU count from its series' first point) and
// its error in points (projected - real per-GPU ratio, x 100).
struct DeclaredError {
  double distance = 0;
  double error_points = 0;
  std::string where;  // the fixture row
};

struct IntervalCalibration {
  // Points per sqrt(doubling) on either side of the projected ratio.
  double points_per_root_doubling = 0;
  int declared_rows = 0;
  std::string source;  // where the declared rows came from, in words
};

// The calibration of `errors` (rows at distance 0 carry no ratio and are skipped). UsageError
// when none is left: an interval without declared rows would be a guess.
IntervalCalibration calibrate_interval(const std::vector<DeclaredError>& errors,
                                       const std::string& source);

// Doublings extrapolated from the first point: log2 of the GPU-count ratio, plus, for a fabric
// fitted from measurements (measured_max_nodes > 0), the doublings of the node count beyond the
// largest measured one (where the fit itself extrapolates). 0 at the first point.
double extrapolation_distance(int world, int first_world, int nodes, int measured_max_nodes);

struct RatioInterval {
  double lo = 1, hi = 1;
};
// ratio -/+ c x sqrt(d) / 100, never below 0.
RatioInterval ratio_interval(const IntervalCalibration& calibration, double ratio,
                             double distance);

// Sets every row's per_gpu_vs_first (tokens/s per GPU over the first row's) with its interval,
// and tokens_per_s_per_gpu_lo / _hi = the first row's tokens/s per GPU x that interval: the
// absolute figure's interval given the first point's compute (the compute source's own error is
// the user's input: measured compute carries none, an assumed MFU is a guess the interval does
// not price). `measured_max_nodes`: see extrapolation_distance (0: a profile, nothing measured).
void apply_intervals(std::vector<ProjectionRow>& rows, const IntervalCalibration& calibration,
                     int measured_max_nodes = 0);

// The same error for one projected row with no first row of its own (advise's layouts, the fabric
// answer's best layouts): the half-width, as a fraction of the row's throughput, over the doublings
// from one node to `nodes` (and beyond a fitted fabric's measured node counts).
double scaling_halfwidth_from_one_node(const IntervalCalibration& calibration, int nodes,
                                       int measured_max_nodes = 0);

// "+-1.90 points x sqrt(doublings of the GPU count), from 8 declared rows of ...".
std::string calibration_text(const IntervalCalibration& calibration);
// The same as a table's header says it: the calibration, from which row the doublings count, and
// the measured node counts beyond which they count again.
std::string interval_words(const IntervalCalibration& calibration, int measured_max_nodes);

}  // namespace collreplay::project
