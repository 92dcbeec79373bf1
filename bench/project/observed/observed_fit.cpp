#include "bench/project/observed/observed_fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "bench/project/model/least_squares.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

// Compute slowdown 0 .. 0.95 and link spread 0 .. 1 in steps of 0.05: finer than the rows can
// tell apart (a step of either moves a fitted row by well under the noise floor).
constexpr int kSlowdownSteps = 20, kSpreadSteps = 21;
constexpr double kGridStep = 0.05;
constexpr int kGaussNewtonIterations = 25;

class Fitter {
 public:
  Fitter(const std::vector<ObservedCase>& cases, const FabricModel& base)
      : cases_(cases), base_(base) {}

  // The compute scale at which the 1-node rows' steps match on (geometric) average. They carry
  // no inter-node traffic, so only the slowdown (of their intra-node comm) matters.
  double solve_scale(ObservedParams p) {
    double lo = 1e-3, hi = 1e3;
    for (int i = 0; i < 60; ++i) {
      p.terms.compute_scale = std::sqrt(lo * hi);
      double log_ratio = 0;
      for (const ObservedCase& c : cases_)
        if (c.row.nodes == 1) log_ratio += std::log(step_ms(p, c) / c.observed_step_ms);
      (log_ratio > 0 ? hi : lo) = p.terms.compute_scale;
    }
    return std::sqrt(lo * hi);
  }

  // Overhead and 1/bandwidth by Gauss-Newton from `p`'s values, the rest of `p` held.
  ObservedParams solve_linear_pair(ObservedParams p) {
    double sse = sum_squares(p);
    for (int it = 0; it < kGaussNewtonIterations; ++it) {
      std::vector<double> t, known;
      std::vector<std::vector<double>> x;
      const double c0 = p.terms.inter_overhead_ms, beta0 = 1 / p.inter_gbyte_s;
      const double dc = std::max(0.01, 0.01 * c0), dbeta = 0.01 * beta0;
      for (const ObservedCase& c : cases_) {
        if (c.row.nodes == 1) continue;
        const double s0 = step_ms(p, c);
        ObservedParams q = p;
        q.terms.inter_overhead_ms = c0 + dc;
        const double slope_c = (step_ms(q, c) - s0) / dc;
        q = p;
        q.inter_gbyte_s = 1 / (beta0 + dbeta);
        const double slope_beta = (step_ms(q, c) - s0) / dbeta;
        t.push_back(c.observed_step_ms);
        known.push_back(s0 - slope_c * c0 - slope_beta * beta0);
        x.push_back({slope_c, slope_beta});
      }
      const LeastSquares ls = fit_nonnegative(t, known, x, {true, true});
      if (!ls.ok) break;
      // Step halving: the step time is piecewise linear (max of the two streams), so a full
      // linearised step can overshoot a kink.
      bool improved = false;
      for (double lambda = 1; lambda > 1.0 / 64 && !improved; lambda /= 2) {
        ObservedParams q = p;
        q.terms.inter_overhead_ms = c0 + lambda * (ls.coef[0] - c0);
        q.inter_gbyte_s = 1 / (beta0 + lambda * (ls.coef[1] - beta0));
        const double q_sse = sum_squares(q);
        if (q_sse < sse) {
          improved = sse - q_sse > 1e-12;
          p = q;
          sse = q_sse;
        }
      }
      if (!improved) break;
    }
    return p;
  }

  // Relative RMS error over every row.
  double rms(const ObservedParams& p) {
    double sum = 0;
    for (const ObservedCase& c : cases_) sum += squared_error(p, c);
    return std::sqrt(sum / static_cast<double>(cases_.size()));
  }

  double step_ms(const ObservedParams& p, const ObservedCase& c) {
    return case_step_ms(c, with_inter_tier(base_, p), p.terms, maxima_);
  }

 private:
  double squared_error(const ObservedParams& p, const ObservedCase& c) {
    const double e = (step_ms(p, c) - c.observed_step_ms) / c.observed_step_ms;
    return e * e;
  }

  double sum_squares(const ObservedParams& p) {
    double sum = 0;
    for (const ObservedCase& c : cases_)
      if (c.row.nodes > 1) sum += squared_error(p, c);
    return sum;
  }

  const std::vector<ObservedCase>& cases_;
  FabricModel base_;
  NormalMaxima maxima_;
};

void require_rows(const std::vector<ObservedCase>& cases, const std::string& fabric) {
  std::set<int> multi;
  bool single = false;
  for (const ObservedCase& c : cases) {
    single |= c.row.nodes == 1;
    if (c.row.nodes > 1) multi.insert(c.row.nodes);
  }
  if (!single)
    throw UsageError("fabric '" + fabric +
                     "': no 1-node row to fit the compute from (the 1-node step has no "
                     "inter-node traffic)");
  if (multi.size() < 2)
    throw UsageError("fabric '" + fabric + "': multi-node rows at " +
                     std::to_string(multi.size()) +
                     " node count(s); the inter-node terms need 2 or more");
}

}  // namespace

FabricModel with_inter_tier(const FabricModel& base, const ObservedParams& p) {
  FabricModel m = base;
  m.inter = TierParams{kAssumedInterHopUs, p.inter_gbyte_s, 0, 1};
  m.links = 1;  // the label says nothing of NICs: every group gets the node's whole bandwidth
  return m;
}

ObservedFit fit_observed(std::vector<ObservedCase> cases, const FabricModel& base,
                         const StepTerms& fixed, const std::string& fabric) {
  require_rows(cases, fabric);
  ObservedFit fit;
  fit.fabric = fabric;
  fit.cases = std::move(cases);
  Fitter fitter(fit.cases, base);
  std::vector<ObservedParams> all;
  for (int k = 0; k < kSlowdownSteps; ++k) {
    ObservedParams p;
    p.terms = fixed;
    p.terms.compute_slowdown = k * kGridStep;
    p.terms.inter_overhead_ms = 0.5;  // a start in the middle of what clusters show
    p.inter_gbyte_s = 100;
    p.terms.compute_scale = fitter.solve_scale(p);
    for (int s = 0; s < kSpreadSteps; ++s) {
      p.terms.link_spread = s * kGridStep;
      p = fitter.solve_linear_pair(p);  // warm start: the previous spread's solution
      p.rms = fitter.rms(p);
      all.push_back(p);
    }
  }
  fit.best = *std::min_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.rms < b.rms;
  });
  const double limit = std::max(fit.best.rms, kObservedNoiseFloor);
  for (const ObservedParams& p : all)
    if (p.rms <= limit) fit.plausible.push_back(p);
  fit.model = with_inter_tier(base, fit.best);
  for (const ObservedCase& c : fit.cases) fit.predicted_step_ms.push_back(fitter.step_ms(fit.best, c));
  return fit;
}

double predict_case_ms(const ObservedFit& fit, const ObservedParams& p, const ObservedCase& c,
                       NormalMaxima& maxima) {
  return case_step_ms(c, with_inter_tier(fit.model, p), p.terms, maxima);
}

}  // namespace collreplay::project
