// Where the projection's intra-node tier comes from when the fabric itself has no single-node
// measurements (a profile, an observed throughput table): a results folder given by --intra, or
// the measured 2x H200 NVLink sweep found beside the executable.
#pragma once
#include <string>

#include "bench/project/model/fit.hpp"
#include "bench/project/project_cli.hpp"

namespace collreplay::project {

// The repository's file `relative`, as seen from build/bin (or an installed bin/); "" when absent.
std::string beside_checkout(const std::string& relative);

// --intra, or the measured NVLink sweep; UsageError when neither exists.
std::string intra_results(const ProjectOptions& options);

// The intra-node tier and base latency fitted from intra_results(); `model` supplies the rest.
FitReport intra_fit(const ProjectOptions& options, const FabricModel& model);

}  // namespace collreplay::project
