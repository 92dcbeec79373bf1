// The schedule of one rank of a pipeline: its stage's (or, interleaved, stages') micro-batch
// forwards and backwards in the order the pipeline schedule gives (pipeline_order.hpp), with the
// gradient synchronisation torch.distributed.pipelining runs (stage_pieces.hpp), and the sends
// and receives between stages: a stage's output (micro-batch x seq x hidden in the param dtype,
// / tp under sequence parallelism, whose activations leave a stage split over the TP group) to
// the next stage, its input gradient to the previous, over the pipeline group (the ranks with the
// same local rank in every stage: strided(pp, world / pp)). A forward waits for its receive, a
// backward for the gradient's, so the bubble comes from the order, not from a formula.
// Ops of a stage keep their names with one stage per rank; interleaved, every op of virtual
// stage k is prefixed "stage<k>." (its units too). Sends and receives: `pp.<send|recv>.<fwd|bwd>.
// mb<j>`, unit "stage<k>". A batch_isend_irecv call's first op waits for the previous call's
// last (the pipeline group's stream runs them in order anyway), so that the executor issues
// torch's batches and no more (workloads/p2p_batches.hpp).
#pragma once
#include "workloads/plan/pipeline/pipeline_plan.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// For a request with --pp above 1 (build_schedule calls it). UsageError for bad input.
Schedule build_pipeline_schedule(const WorkloadRequest& request);

// The request's pipeline plan, every flag checked (UsageError), its model read for the layers.
PipelinePlan request_pipeline_plan(const WorkloadRequest& request);

}  // namespace collreplay
