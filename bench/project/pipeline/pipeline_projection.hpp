// A pipeline's projected step: every stage's schedule (one rank per stage, the ranks of a stage
// running alike) costed as one rank is (projection.hpp: compute at the modelled speed, each
// collective on the tier its group crosses, a stage boundary's send on the node's shared NICs
// when its peer is on another node), then run together (model/step_sim.hpp), so the bubble is
// what the stages' order leaves. The row: every stage's units (the roots named stage<p>.root),
// the busiest stage's compute and comm, the joint step, exposure by group over all stages, the
// largest stage's memory (pipeline_memory.hpp; it fits when every stage fits), the stages' mean
// FLOPs per GPU, and pipeline_wait_ms: the joint step less the slowest stage alone.
#pragma once
#include "bench/project/projection.hpp"

namespace collreplay::project {

// `schedule`: a rank of the pipeline (inputs.request with --pp above 1).
ProjectionRow project_pipeline(const ProjectionInputs& inputs, const Schedule& schedule, int nodes,
                               NormalMaxima& maxima);

}  // namespace collreplay::project
