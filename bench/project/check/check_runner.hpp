// `project --check FIXTURE...`: every row of the published-throughput fixtures predicted by
// project's own projection (the row's fabric profile with the measured intra-node tier, compute
// model:GPU at the default MFU unless the row says otherwise), series by series against the band.
#pragma once
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "bench/project/check/check_series.hpp"
#include "bench/project/project_cli.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::project {

// The terms a fixture may name for an unmatched series ("unmatched: explained by TERM") and the
// number the projection computes for each, in ms per step: exposed_comm, optimizer_step,
// layer_headroom (the median layer's). nullopt for a term project does not compute.
std::optional<double> projected_term_ms(const ProjectionRow& row, const std::string& term);
// The names projected_term_ms knows, for messages.
std::string projected_term_names();

struct CheckedSeries {
  SeriesCheck check;
  std::string compute;  // the compute model of the series' first point
};

// Reads every fixture (UsageError on a bad one: nothing is projected) and projects each row.
std::vector<CheckedSeries> check_fixtures(const ProjectOptions& options);

// Prints the table (report) and returns 0 when every series passes, 1 otherwise.
int run_check(const ProjectOptions& options, std::ostream& out);

}  // namespace collreplay::project
