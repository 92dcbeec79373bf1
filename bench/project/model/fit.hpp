// Least-squares fit of the cost model to measured points: the intra-node tier from single-node
// points, then the inter-node tier from multi-node points with the intra tier held fixed. Each
// tier's latency and bandwidth are linear given the efficiency curve, so the curve (half size,
// steepness) is searched on a grid and latency/bandwidth solved exactly at each grid point,
// minimising squared relative error.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/measured_points.hpp"

namespace collreplay::project {

struct FittedPoint {
  MeasuredPoint point;
  Algo algo = Algo::ring;  // reported by NCCL where recorded, else the model's assumption
  bool algo_was_reported = false;
  double predicted_us = 0;
};

struct TierFitResult {
  TierParams params;
  double base_us = 0;              // fitted only where the caller let it (no lower tier to hold it)
  bool steps_identifiable = true;  // false: one step count only, latency went to base
  int points = 0;
  double rms_relative_error = 0;
};

// Fits one tier (`inter` or intra) of `fixed`, each point costed with its algorithm; the base
// latency is fitted too when `fit_base`, else taken from `fixed`.
TierFitResult fit_tier(const std::vector<MeasuredPoint>& points, const std::vector<Algo>& algos,
                       bool inter, bool fit_base, const FabricModel& fixed);

struct FitReport {
  FabricModel model;
  std::vector<FittedPoint> points;
  std::vector<int> node_counts;  // of the points fitted
  bool intra_fitted = false;     // false: taken from elsewhere (or not needed)
  int intra_points = 0, inter_points = 0;
  // 10th and 90th percentiles of measured / predicted over the fitted points (1 included):
  // the band every projected comm time is multiplied by.
  double ratio_lo = 1, ratio_hi = 1;
  std::vector<std::string> notes;  // e.g. "fit from 2 node counts; 3 or more preferred"
};

// The algorithm a point is modelled with: NCCL's report where present and applicable; else ring
// (pairwise for all-to-all).
Algo assumed_algo(const MeasuredPoint& point, bool& reported);

// Throws UsageError when the points span fewer than 2 node counts, hold no multi-node point, or
// need an intra tier that neither they nor `intra_given` provide.
// `intra_given` supplies the intra tier and base latency when the points have no single-node ones.
FitReport fit_fabric(const std::vector<MeasuredPoint>& points,
                     const std::optional<FabricModel>& intra_given, int links);

// The intra-node tier alone, from the single-node points (2+ ranks) of `points`; `model` supplies
// the rest (a profile's inter tier). UsageError when there are none.
FitReport fit_intra(const std::vector<MeasuredPoint>& points, const FabricModel& model);

}  // namespace collreplay::project
