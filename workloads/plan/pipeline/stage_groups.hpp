// A stage's collectives in the whole world's terms. The stage's schedule is built over its own
// world / pp ranks, where its groups (tp, shard, replicate, expert, data_parallel, and world: the
// stage) follow workloads/plan/parallel/mesh.hpp; with pp outermost (pipeline_plan.hpp) each is,
// in the whole world, the strided group of the same size and stride (a stage's block of ranks
// tiles the world), which is how the schedule names it.
#pragma once
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// The collective's group over a stage laid out as `stage` (its world = the stage's ranks) as a
// strided group. RuntimeError for the node-bound groups (node, expert_node, expert_rail), which a
// pipeline does not build.
CollectiveOp on_stage_group(CollectiveOp collective, const MeshLayout& stage);

}  // namespace collreplay
