#include "bench/project/intra_tier.hpp"

#include "bench/project/fabric_profiles.hpp"
#include "bench/project/model/measured_points.hpp"
#include "common/errors.hpp"

namespace collreplay::project {

std::string beside_checkout(const std::string& relative) {
  return find_beside_executable({"../../" + relative, "../" + relative});
}

std::string intra_results(const ProjectOptions& o) {
  if (!o.intra.empty()) return o.intra;
  const std::string found = beside_checkout("sweeps/measured/2026-11-23");
  if (!found.empty()) return found;
  throw UsageError(
      "no intra-node measurements found beside the executable: give --intra RESULTS_DIR");
}

FitReport intra_fit(const ProjectOptions& o, const FabricModel& model) {
  const std::string dir = intra_results(o);
  const ResultsSet results = load_results(dir, o.intra_transport);
  require_one_transport_per_tier(results.points, dir);
  return fit_intra(results.points, model);
}

}  // namespace collreplay::project
