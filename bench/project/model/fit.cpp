#include "bench/project/model/fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/project/model/least_squares.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

// Efficiency-curve grid: no curve, or half sizes 1 KiB .. 4 GiB by factors of 2, steepness
// 0.3..1.5.
std::vector<TierParams> curve_grid() {
  std::vector<TierParams> grid{TierParams{0, 0, 0, 1}};
  for (int k = 10; k <= 32; ++k)
    for (int g = 3; g <= 15; ++g) grid.push_back(TierParams{0, 0, std::ldexp(1.0, k), g / 10.0});
  return grid;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 1;
  std::sort(v.begin(), v.end());
  const double pos = q * (v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// Each fitted point's prediction, and the band: measured / predicted at the 10th and 90th
// percentile, widened to include 1.
void predict_and_band(FitReport& report) {
  std::vector<double> ratios{1.0};
  for (FittedPoint& f : report.points) {
    f.predicted_us =
        predict_with(f.point.kind, f.algo, f.point.bytes, f.point.span, report.model).time_us;
    ratios.push_back(f.point.time_us / f.predicted_us);
  }
  report.ratio_lo = std::min(1.0, percentile(ratios, 0.10));
  report.ratio_hi = std::max(1.0, percentile(ratios, 0.90));
}

}  // namespace

Algo assumed_algo(const MeasuredPoint& p, bool& reported) {
  reported = false;
  CostTerms terms;
  if (p.algo_reported && cost_terms(p.kind, *p.algo_reported, p.bytes, p.span, 1, terms)) {
    reported = true;
    return *p.algo_reported;
  }
  return p.kind == CollKind::all_to_all ? Algo::pairwise : Algo::ring;
}

TierFitResult fit_tier(const std::vector<MeasuredPoint>& points, const std::vector<Algo>& algos,
                       bool inter, bool fit_base, const FabricModel& fixed) {
  std::vector<CostTerms> terms(points.size());
  for (std::size_t i = 0; i < points.size(); ++i)
    cost_terms(points[i].kind, algos[i], points[i].bytes, points[i].span, fixed.links, terms[i]);
  TierFitResult best;
  double best_sse = std::numeric_limits<double>::infinity();
  const std::size_t n = points.size();
  // Columns: per-step latency, base latency, bytes / efficiency (coefficient 1 / bandwidth).
  std::vector<double> t(n), known(n);
  std::vector<std::vector<double>> x(n, std::vector<double>(3, 0));
  std::vector<double> step_counts;
  for (const TierParams& curve : curve_grid()) {
    for (std::size_t i = 0; i < n; ++i) {
      const CostTerms& c = terms[i];
      t[i] = points[i].time_us;
      known[i] = fit_base ? 0 : fixed.base_us;
      x[i][1] = 1;
      if (inter) {
        known[i] += c.intra_steps * fixed.intra.alpha_us;
        x[i][0] = c.inter_steps;
        x[i][2] = c.inter_bytes / (c.inter_share * efficiency(curve, c.inter_chunk));
      } else {
        x[i][0] = c.intra_steps;
        x[i][2] = c.intra_bytes / efficiency(curve, c.intra_chunk);
      }
    }
    const LeastSquares s = fit_nonnegative(t, known, x, {true, fit_base, true});
    // A curve must earn its place: ties (gamma = 1 is the same as extra latency per step) keep the
    // simpler, earlier grid point.
    if (s.ok && s.sse < best_sse - 1e-12 * static_cast<double>(n)) {
      best_sse = s.sse;
      best.params = TierParams{s.coef[0], 1.0 / (s.coef[2] * 1e3), curve.half_bytes, curve.gamma};
      best.base_us = fit_base ? s.coef[1] : fixed.base_us;
    }
  }
  if (!std::isfinite(best_sse))
    throw UsageError(std::string("cannot fit the ") + (inter ? "inter" : "intra") +
                     "-node bandwidth: the measured times do not grow with size");
  for (std::size_t i = 0; i < n; ++i)
    if (std::find(step_counts.begin(), step_counts.end(), x[i][0]) == step_counts.end())
      step_counts.push_back(x[i][0]);
  best.steps_identifiable = step_counts.size() > 1;
  best.points = static_cast<int>(n);
  best.rms_relative_error = std::sqrt(best_sse / std::max<std::size_t>(n, 1));
  return best;
}

namespace {

// Fits the intra tier and the base latency into report.model, noting what the data could not say.
void fit_intra_tier(FitReport& report, const std::vector<MeasuredPoint>& intra,
                    const std::vector<Algo>& algos) {
  const TierFitResult r = fit_tier(intra, algos, false, true, report.model);
  report.model.intra = r.params;
  report.model.base_us = r.base_us;
  report.intra_fitted = true;
  report.intra_points = static_cast<int>(intra.size());
  if (!r.steps_identifiable)
    report.notes.push_back(
        "intra-node points at one rank count only: per-hop latency not separable from the "
        "base latency (all of it counted as base)");
}

}  // namespace

FitReport fit_fabric(const std::vector<MeasuredPoint>& all,
                     const std::optional<FabricModel>& intra_given, int links) {
  FitReport report;
  report.node_counts = node_counts(all);
  if (std::none_of(all.begin(), all.end(), [](const MeasuredPoint& p) { return p.span.nodes > 1; }))
    throw UsageError("no multi-node points to fit the inter-node tier");
  if (report.node_counts.size() < 2)
    throw UsageError("fitting needs measurements at 2 or more node counts; found " +
                     std::to_string(report.node_counts.size()) +
                     (report.node_counts.empty()
                          ? ""
                          : " (" + std::to_string(report.node_counts[0]) + " nodes)"));
  std::vector<MeasuredPoint> intra, inter;
  std::vector<Algo> intra_algo, inter_algo;
  bool any_pat = false, any_tree = false, multi_gpu_inter = false;
  for (const MeasuredPoint& p : all) {
    if (p.span.ranks < 2) continue;
    FittedPoint f{p, Algo::ring, false, 0};
    f.algo = assumed_algo(p, f.algo_was_reported);
    any_pat |= f.algo == Algo::pat;
    any_tree |= f.algo == Algo::tree;
    (p.span.nodes == 1 ? intra : inter).push_back(p);
    (p.span.nodes == 1 ? intra_algo : inter_algo).push_back(f.algo);
    if (p.span.nodes > 1 && p.span.ranks_per_node() > 1) multi_gpu_inter = true;
    report.points.push_back(f);
  }
  report.model.links = links;
  report.model.pat_allowed = any_pat;
  report.model.tree_allowed = any_tree;
  if (!intra.empty()) {
    fit_intra_tier(report, intra, intra_algo);
  } else if (intra_given) {
    report.model.intra = intra_given->intra;
    report.model.base_us = intra_given->base_us;
  } else if (multi_gpu_inter) {
    throw UsageError("multi-GPU nodes but no single-node points to fit the intra-node tier");
  }
  report.inter_points = static_cast<int>(inter.size());
  // Without an intra tier to hold it, the base latency is fitted with the inter tier.
  const bool inter_base = intra.empty() && !intra_given;
  const TierFitResult r = fit_tier(inter, inter_algo, true, inter_base, report.model);
  report.model.inter = r.params;
  if (inter_base) report.model.base_us = r.base_us;
  predict_and_band(report);
  const std::vector<int> inter_counts = node_counts(inter);
  if (inter_counts.size() < 2)
    report.notes.push_back(
        "inter-node tier fitted from one node count (" + std::to_string(inter_counts[0]) +
        "): 2-node runs can overstate bandwidth; 3 or more node counts preferred");
  else if (report.node_counts.size() < 3)
    report.notes.push_back("fit from 2 node counts; 3 or more preferred");
  if (inter_base && !r.steps_identifiable)
    report.notes.push_back("inter-node per-hop latency not separable from the base latency");
  return report;
}

FitReport fit_intra(const std::vector<MeasuredPoint>& all, const FabricModel& model) {
  FitReport report;
  report.model = model;
  std::vector<MeasuredPoint> intra;
  std::vector<Algo> algos;
  for (const MeasuredPoint& p : all) {
    if (p.span.nodes != 1 || p.span.ranks < 2) continue;
    FittedPoint f{p, Algo::ring, false, 0};
    f.algo = assumed_algo(p, f.algo_was_reported);
    intra.push_back(p);
    algos.push_back(f.algo);
    report.points.push_back(f);
  }
  if (intra.empty())
    throw UsageError("no single-node points with 2 or more ranks to fit the intra-node tier");
  fit_intra_tier(report, intra, algos);
  report.node_counts = node_counts(intra);
  predict_and_band(report);
  return report;
}

}  // namespace collreplay::project
