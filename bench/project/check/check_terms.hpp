// The numbers `project --check` prints beside a point: a reported series' term (exposed_comm,
// optimizer_step, layer_headroom per step, read off the projected row) and a points series'
// diagnosis, solved on the projection itself: what the term would have to be for the projected
// step to reach the real one. A diagnosis says which quantity is off and by how much; it never
// turns a point outside its band into a pass.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "bench/project/projection.hpp"

namespace collreplay::project {

// The term's number at one point, in ms unless said: exposed_comm, optimizer_step and
// layer_headroom (the median layer's) per step; inter_overhead: the StepTerms::inter_overhead_ms
// (what `project --observed` fits) at which the projected step reaches `target_step_ms`, 0 when
// the projection is already as slow; microbatch_efficiency, in %: how much faster per token the
// compute must run than at the series' first point for the step to reach the target, only where
// this point's micro-batch is larger than the first point's (negative: it must run slower).
// nullopt for a term project does not compute, inter_overhead at one node (no collective crosses
// one), or microbatch_efficiency at the first point's micro-batch.
std::optional<double> projected_term_ms(const ProjectionInputs& inputs, const Schedule& schedule,
                                        const ProjectionRow& row, const std::string& term,
                                        double target_step_ms, std::int64_t first_micro_batch);
// The names projected_term_ms knows, for messages.
std::string projected_term_names();
// What a term's number means, after its value: "ms on every collective that crosses nodes ...".
std::string term_meaning(const std::string& term);

}  // namespace collreplay::project
