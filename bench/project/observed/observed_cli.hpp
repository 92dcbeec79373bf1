// `project --observed TABLE.csv --fabric LABEL [--held-out TABLE.csv] --model ... --nodes ...`:
// fits the label's rows of a real throughput table (observed_fit.hpp), checks rows kept out of
// the fit, and projects the command line's workload with the band of the plausible fits.
#pragma once
#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/project_cli.hpp"

namespace collreplay::project {

// Prints to `out` and returns the records to write. UsageError (one line) on a bad table, a label
// the table lacks, or a compute that is not model:GPU.
std::vector<nlohmann::json> run_observed(const ProjectOptions& options, std::ostream& out);

}  // namespace collreplay::project
