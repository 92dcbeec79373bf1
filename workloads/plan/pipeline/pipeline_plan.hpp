// A pipeline request checked against the model and world: the schedule kind, the stages (each
// (virtual) stage's decoder layers, the embedding on the first, the final norm, head and loss on
// the last) and where the ranks sit. Rank layout, as torchtitan's device mesh
// [pp, dp_replicate, dp_shard, cp, tp] and Megatron-LM's order tp-cp-ep-dp-pp lay them out: pp
// outermost, tp innermost, so rank = stage x (world / pp) + local, and the local rank is laid out
// as without a pipeline (workloads/plan/parallel/mesh.hpp) over the world / pp ranks of a stage.
#pragma once
#include <string>
#include <vector>

#include "workloads/plan/request.hpp"

namespace collreplay {

enum class PipeScheduleKind { gpipe, one_f_one_b, interleaved };

struct PipelinePlan {
  int pp = 1;              // ranks of one pipeline
  int virtual_stages = 1;  // V: stages per rank (interleaved; 1 otherwise)
  PipeScheduleKind kind = PipeScheduleKind::one_f_one_b;
  int micro_batches = 1;  // M: micro-batches per step
  int stage_world = 1;    // ranks per stage: world / pp
  // pp x V stages in pipeline order; stage k runs on pipeline rank k mod pp (torch's
  // generate_stage_to_rank_mapping, Megatron's model chunks), as local chunk k / pp.
  std::vector<StageSpan> stages;

  int stage_count() const { return pp * virtual_stages; }
  int stage_of(int pipeline_rank, int chunk) const { return chunk * pp + pipeline_rank; }
  // The pipeline rank (the stage index for V = 1) of a world rank.
  int pipeline_rank(int world_rank) const { return world_rank / stage_world; }
};

// Whether the request asks for a pipeline (--pp above 1).
inline bool pipelined(const WorkloadRequest& request) { return request.pipeline.pp > 1; }

// "gpipe", "1f1b" or "interleaved:V".
std::string pipe_schedule_name(const PipelinePlan& plan);

// The cheap checks, before any model is read (UsageError naming the first bad flag).
void check_pipeline_flags(const WorkloadRequest& request);
// The plan for a model of `model_layers` decoder layers (after --layers); UsageError on what the
// schedules or the split refuse: micro-batches fewer than stages for 1F1B (torch's Schedule1F1B),
// interleaved micro-batches that are not a multiple of pp (Megatron-LM's rule), more stages than
// layers, an uneven split without --pp-layers, a --pp-layers list of the wrong length or sum.
PipelinePlan plan_pipeline(const WorkloadRequest& request, int model_layers);

}  // namespace collreplay
