#include "bench/project/interval/scaling_interval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/errors.hpp"

namespace collreplay::project {

IntervalCalibration calibrate_interval(const std::vector<DeclaredError>& errors,
                                       const std::string& source) {
  IntervalCalibration c;
  c.source = source;
  for (const DeclaredError& e : errors) {
    if (e.distance <= 0) continue;
    c.points_per_root_doubling =
        std::max(c.points_per_root_doubling, std::fabs(e.error_points) / std::sqrt(e.distance));
    ++c.declared_rows;
  }
  if (c.declared_rows == 0)
    throw UsageError("the projection's intervals need declared rows beyond a series' first point "
                     "(fixture column role = declared); " + source + " has none");
  return c;
}

double extrapolation_distance(int world, int first_world, int nodes, int measured_max_nodes) {
  if (world < 1 || first_world < 1 || nodes < 1)
    throw UsageError("extrapolation distance: worlds and nodes must be positive");
  double d = std::max(0.0, std::log2(static_cast<double>(world) / first_world));
  if (measured_max_nodes > 0 && nodes > measured_max_nodes)
    d += std::log2(static_cast<double>(nodes) / measured_max_nodes);
  return d;
}

RatioInterval ratio_interval(const IntervalCalibration& c, double ratio, double distance) {
  const double half = c.points_per_root_doubling * std::sqrt(std::max(0.0, distance)) / 100;
  return {std::max(0.0, ratio - half), ratio + half};
}

void apply_intervals(std::vector<ProjectionRow>& rows, const IntervalCalibration& c,
                     int measured_max_nodes) {
  if (rows.empty()) return;
  const ProjectionRow& first = rows.front();
  const double first_per_gpu = first.tokens_per_s_per_gpu;
  const int first_world = first.world;
  for (ProjectionRow& r : rows) {
    r.per_gpu_vs_first = first_per_gpu > 0 ? r.tokens_per_s_per_gpu / first_per_gpu : 0;
    r.first_nodes = first.nodes;
    const double d = extrapolation_distance(r.world, first_world, r.nodes, measured_max_nodes);
    const RatioInterval i = ratio_interval(c, r.per_gpu_vs_first, d);
    r.per_gpu_vs_first_lo = i.lo;
    r.per_gpu_vs_first_hi = i.hi;
    r.tokens_per_s_per_gpu_lo = first_per_gpu * i.lo;
    r.tokens_per_s_per_gpu_hi = first_per_gpu * i.hi;
  }
}

double scaling_halfwidth_from_one_node(const IntervalCalibration& c, int nodes,
                                       int measured_max_nodes) {
  const double d = extrapolation_distance(nodes, 1, nodes, measured_max_nodes);
  return c.points_per_root_doubling * std::sqrt(d) / 100;
}

std::string calibration_text(const IntervalCalibration& c) {
  char text[160];
  std::snprintf(text, sizeof text,
                "+-%.2f points x sqrt(doublings of the GPU count), from %d declared rows",
                c.points_per_root_doubling, c.declared_rows);
  return std::string(text) + " of " + c.source;
}

std::string interval_words(const IntervalCalibration& c, int measured_max_nodes) {
  std::string words = "per GPU against the first row, " + calibration_text(c) +
                      "; doublings counted from the first row";
  if (measured_max_nodes > 0)
    words += " and again beyond the " + std::to_string(measured_max_nodes) +
             " nodes the fabric was measured at";
  return words;
}

}  // namespace collreplay::project
