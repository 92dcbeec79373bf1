// `project --observed TABLE.csv --fabric LABEL [--held-out TABLE.csv] --model ... --nodes ...`:
// fits the label's rows of a real throughput table (observed_fit.hpp), checks rows kept out of
// the fit, and projects the command line's workload with the band of the plausible fits.
#pragma once
#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/compute_source.hpp"
#include "bench/project/observed/observed_fit.hpp"
#include "bench/project/project_cli.hpp"

namespace collreplay::project {

// The --fabric label's rows of the --observed table fitted (printed to `out`): the fabric model,
// the terms of the best fit and the modelled compute they scale. UsageError (one line) on a bad
// table, a label the table lacks, or a compute that is not model:GPU.
struct ObservedFabric {
  ObservedFit fit;
  ComputeSource compute;
  std::string compute_spec;  // --compute, or its default model:h100
  std::string intra_label;
  std::vector<nlohmann::json> records;  // the observed_fit record
};
ObservedFabric fit_observed_fabric(const ProjectOptions& options, std::ostream& out);

// Prints to `out` and returns the records to write. UsageError (one line) on a bad table, a label
// the table lacks, or a compute that is not model:GPU.
std::vector<nlohmann::json> run_observed(const ProjectOptions& options, std::ostream& out);

}  // namespace collreplay::project
