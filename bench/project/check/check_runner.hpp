// `project --check FIXTURE...`: every row of the published-throughput fixtures predicted by
// project's own projection (the row's fabric profile with the measured intra-node tier, compute
// model:GPU at the default MFU unless the row says otherwise), series by series against the band.
#pragma once
#include <iosfwd>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/project/check/check_series.hpp"
#include "bench/project/project_cli.hpp"
#include "bench/project/projection.hpp"

namespace collreplay::project {

// The terms a fixture may name ("unmatched: explained by TERM", "POINTS else explained by TERM")
// and the number the projection computes for each at one point, in ms: exposed_comm, optimizer_step
// and layer_headroom (the median layer's) per step, read off the row; inter_overhead per
// collective that crosses nodes, solved: the StepTerms::inter_overhead_ms (what `project
// --observed` fits) at which the projected step reaches `target_step_ms`; microbatch_efficiency,
// in % (not ms): how much faster per token the compute must run than at the series' first point
// for the step to reach the target, only where this point's micro-batch is larger than the first
// point's (its GEMMs are larger: an efficiency a fixed-MFU compute model does not see). nullopt for
// a term project does not compute, inter_overhead at one node (no collective crosses one), or
// microbatch_efficiency at the first point's micro-batch.
std::optional<double> projected_term_ms(const ProjectionInputs& inputs, const Schedule& schedule,
                                        const ProjectionRow& row, const std::string& term,
                                        double target_step_ms, std::int64_t first_micro_batch);
// The names projected_term_ms knows, for messages.
std::string projected_term_names();
// What a term's number means, after its value: "ms per collective that crosses nodes: ...".
std::string term_meaning(const std::string& term);

struct CheckedSeries {
  SeriesCheck check;
  std::string compute;  // the compute model of the series' first point
  std::string fabric;   // the fabric profile of the series' first point
};

// Reads every fixture (UsageError on a bad one: nothing is projected) and projects each row.
std::vector<CheckedSeries> check_fixtures(const ProjectOptions& options);

// Prints the table (report) and returns 0 when every series passes, 1 otherwise.
int run_check(const ProjectOptions& options, std::ostream& out);

}  // namespace collreplay::project
