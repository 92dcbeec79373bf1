#include "bench/project/fabric_source.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>

#include "bench/project/fabric_profiles.hpp"
#include "bench/project/model/measured_points.hpp"
#include "bench/project/project_report.hpp"
#include "common/data_files.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

// The fabric the fitted runs recorded (an emulated profile's name), else the fit's source.
std::string fitted_fabric_name(const std::vector<MeasuredPoint>& points,
                               const std::string& source) {
  for (const MeasuredPoint& p : points)
    if (!p.fabric.empty() && p.fabric != "real") return p.fabric;
  return source;
}

FabricSource fitted_folder(const ProjectOptions& o, std::ostream& out) {
  const ResultsSet results = load_results(o.fabric, o.transport, o.results_fabric);
  require_one_fabric(results.points, o.fabric);
  require_one_transport_per_tier(results.points, o.fabric);
  // A folder without single-node points cannot fit the intra tier: take it from --intra.
  std::optional<FabricModel> intra;
  bool single_node = false;
  for (const MeasuredPoint& p : results.points)
    single_node |= p.span.nodes == 1 && p.span.ranks > 1;
  if (!single_node && o.request.gpus_per_node > 1) intra = intra_fit(o, FabricModel{}).model;
  const FitReport fit = fit_fabric(results.points, intra, 1);
  print_fit(fit, o.fabric, out);
  FabricSource s;
  s.fit_records.push_back(fit_json(fit, o.fabric));
  s.model = fit.model;
  s.ratio_lo = fit.ratio_lo;
  s.ratio_hi = fit.ratio_hi;
  s.source_label = "fit:" + o.fabric;
  for (int nodes : fit.node_counts) s.measured_max_nodes = std::max(s.measured_max_nodes, nodes);
  s.fabric_label = fitted_fabric_name(results.points, s.source_label);
  s.intra_label = fit.intra_fitted ? "fit:" + o.fabric : "fit:" + intra_results(o);
  return s;
}

FabricSource named_profile(const ProjectOptions& o, std::ostream& out) {
  const std::string table = !o.fabrics_file.empty() ? o.fabrics_file : default_fabrics_file();
  const FabricProfile profile = find_fabric_profile(read_fabric_profiles(table), o.fabric);
  FabricSource s;
  s.model.inter = inter_tier_of(profile);
  s.model.links = profile.links;
  s.fabric_label = profile.name;
  s.intra_label = "none (1 GPU per node)";
  if (o.request.gpus_per_node > 1) {
    const FitReport fit = intra_fit(o, s.model);
    print_fit(fit, intra_results(o) + " (" + o.intra_transport + ")", out);
    s.fit_records.push_back(fit_json(fit, intra_results(o)));
    s.model.intra = fit.model.intra;
    s.model.base_us = fit.model.base_us;
    s.ratio_lo = fit.ratio_lo;
    s.ratio_hi = fit.ratio_hi;
    s.intra_label = "fit:" + intra_results(o) + " (" + o.intra_transport + ")";
  }
  return s;
}

}  // namespace

std::string intra_results(const ProjectOptions& o) {
  if (!o.intra.empty()) return o.intra;
  return require_data_file(kMeasuredIntraNode, "--intra RESULTS_DIR");
}

FitReport intra_fit(const ProjectOptions& o, const FabricModel& model) {
  const std::string dir = intra_results(o);
  const ResultsSet results = load_results(dir, o.intra_transport);
  require_one_transport_per_tier(results.points, dir);
  return fit_intra(results.points, model);
}

FabricSource fabric_source(const ProjectOptions& o, std::ostream& out) {
  if (o.fabric.empty()) throw UsageError("--fabric PROFILE|RESULTS_DIR is required");
  std::error_code ec;
  return std::filesystem::exists(o.fabric, ec) ? fitted_folder(o, out) : named_profile(o, out);
}

}  // namespace collreplay::project
