// One (virtual) stage's step cut into the pieces a pipeline schedule orders: each micro-batch's
// forward and backward (with its recompute), cut from the schedule the builder makes for the
// stage alone (two micro-batches: the first and the last, the others alike), and the gradient
// synchronisation as
// torch.distributed.pipelining runs it beside data parallelism
// (torch/distributed/pipelining/stage.py):
//   fsdp2 (FSDPModule): every backward runs with set_requires_gradient_sync(False) and
//     set_reshard_after_backward(False): no reduce-scatter per micro-batch (gradients accumulate
//     unsharded), parameters stay gathered after a backward; _post_backward, once per step after
//     the stage's last backward (REDUCE_GRAD), copies in and reduce-scatters every unit (and
//     all-reduces across replicas under HSDP). A unit is gathered only when sharded: with
//     --sharding full (reshard_after_forward=True, FSDP2's default) every forward reshards it, so
//     each forward not preceded by a backward and each backward after a forward gathers again;
//     with grad-op (reshard_after_forward=False, torchtitan's default with PP) it is gathered once,
//     in the first forward. The root is never resharded after forward (FSDP2's root rule).
//   ddp (DistributedDataParallel): every forward and every backward but the last under no_sync():
//     the bucket all-reduces run in the last backward only, and no forward broadcasts the buffers
//     (no_sync leaves require_forward_param_sync False).
//   fsdp1 (FullyShardedDataParallel is no FSDPModule): its own hooks run as without a pipeline,
//     every micro-batch gathering and reduce-scattering.
#pragma once
#include <utility>
#include <vector>

#include "workloads/plan/resolved_request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// Ops whose deps and hides_behind index the block's own ops.
struct OpBlock {
  std::vector<ScheduleOp> ops;
  int first_compute() const;  // -1: none
  int last_compute() const;
};

struct StagePieces {
  std::vector<OpBlock> forward, backward;  // per micro-batch
  OpBlock reduce;  // REDUCE_GRAD's work (fsdp2: copy-in, reduce-scatters); empty otherwise
  std::vector<ScheduleOp> tail;  // the optimizer step, its deps cleared
};

// `built`: the stage's own schedule of min(micro_batches, 2) micro-batches (their forwards and
// backwards, then the optimizer; its ops are moved out, its header and units stay), copied for
// each of `micro_batches` as the builder names them ("mb<j>." when more than one): the first
// forward and the last backward from the ones built as such, the rest alike; `order`: the
// stage's blocks as the pipeline runs them, (forward?, micro-batch). `r`: the stage's request.
StagePieces stage_pieces(Schedule& built, int micro_batches, const ResolvedRequest& r,
                         const std::vector<std::pair<bool, int>>& order);

}  // namespace collreplay
