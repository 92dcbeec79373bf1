// Where the projection's fabric comes from: a named profile (its nominal inter-node tier, the
// intra-node tier fitted from --intra or the measured 2x H200 NVLink sweep found as the
// project's data is) or a results folder fitted as a whole. `project` and `advise` both start here, so
// a fabric means the same to both.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/model/fit.hpp"
#include "bench/project/project_cli.hpp"

namespace collreplay::project {

// The measured 2x H200 NVLink sweep the intra-node tier is fitted from by default, as found by
// common/data_files.hpp's rule.
inline constexpr const char* kMeasuredIntraNode = "sweeps/measured/2026-11-23";

// --intra, or the measured NVLink sweep; UsageError when neither exists.
std::string intra_results(const ProjectOptions& options);

// The intra-node tier and base latency fitted from intra_results(); `model` supplies the rest.
FitReport intra_fit(const ProjectOptions& options, const FabricModel& model);

struct FabricSource {
  FabricModel model;
  double ratio_lo = 1, ratio_hi = 1;  // comm-time band (fit residuals)
  // fabric_label: the fabric the fitted runs recorded (an emulated profile's name), so a fit
  // continues the measured line; source_label: "profile" or "fit:DIR".
  std::string fabric_label, intra_label, source_label = "profile";
  std::vector<nlohmann::json> fit_records;  // the fits it took, as `project` writes them
  // The largest node count a fitted folder measured (0 for a profile): beyond it the fit itself
  // extrapolates, and the projection's intervals widen (interval/scaling_interval.hpp).
  int measured_max_nodes = 0;
};

// --fabric PROFILE|RESULTS_DIR of `options` (not --observed); prints each fit to `out`.
// UsageError (one line) on an unknown profile or a folder that cannot be fitted.
FabricSource fabric_source(const ProjectOptions& options, std::ostream& out);

}  // namespace collreplay::project
