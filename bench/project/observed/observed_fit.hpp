// Fits one fabric label of an observed throughput table. The schedule of every row is timed by
// the cost model plus the step terms (model/step_terms.hpp); the fitted numbers are per fabric,
// never per model, so a model seen only at a few node counts is predicted from the others:
//   compute scale      from the 1-node rows (no inter-node traffic there), by bisection;
//   compute slowdown,  searched on a grid (the step is not linear in them);
//   link spread
//   overhead per inter-node collective and 1 / inter-node bandwidth: at each grid point by
//                      Gauss-Newton on the relative step-time error, each linearised step solved
//                      by the non-negative least squares of least_squares.hpp.
// Every grid point whose relative RMS error is within the noise floor (or the best, if worse)
// is kept: the data cannot tell them apart, and the band is the spread of their projections.
#pragma once
#include <string>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/step_terms.hpp"
#include "bench/project/observed/observed_case.hpp"

namespace collreplay::project {

// Real training step times repeat within about 2% run to run; parameter sets that fit the rows
// that well are indistinguishable.
inline constexpr double kObservedNoiseFloor = 0.02;
// The inter-node per-hop latency is not separable from the per-collective overhead with step
// times at a few node counts: held at a value between NDR InfiniBand (~2 us) and TCP (~10 us).
inline constexpr double kAssumedInterHopUs = 5;

struct ObservedParams {
  StepTerms terms;           // compute scale, overhead, slowdown, link spread (and the nominal mechanisms)
  double inter_gbyte_s = 0;  // inter-node bandwidth per node, all NICs together
  double rms = 0;            // relative RMS error of the step time over the label's rows
};

struct ObservedFit {
  std::string fabric;
  FabricModel model;  // intra tier and base latency as given, inter tier of `best`
  ObservedParams best;
  std::vector<ObservedParams> plausible;  // within the noise floor (best included)
  std::vector<ObservedCase> cases;        // the label's rows
  std::vector<double> predicted_step_ms;  // per case, with `best`
};

// The fabric model with `p`'s inter tier (the assumed hop latency, no efficiency curve).
FabricModel with_inter_tier(const FabricModel& base, const ObservedParams& p);

// UsageError (one line naming the label) without a 1-node row or without multi-node rows at 2 or
// more node counts. `base` holds the intra tier and the base latency; `fixed` the terms the fit
// does not search (the nominal mechanisms).
ObservedFit fit_observed(std::vector<ObservedCase> cases, const FabricModel& base,
                         const StepTerms& fixed, const std::string& fabric);

// The step the fit predicts for any prepared case (a held-out row) under parameter set `p`.
double predict_case_ms(const ObservedFit& fit, const ObservedParams& p, const ObservedCase& c,
                       NormalMaxima& maxima);

}  // namespace collreplay::project
