// DistributedDataParallel's gradient buckets (torch/nn/parallel/distributed.py and
// torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size) and PowerSGD's
// split of a bucket (torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py), and the
// broadcast of the module's buffers before a forward.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/plan/parallel/phase_ops.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step_structure.hpp"

namespace collreplay {

struct DdpBucket {
  std::vector<const ParamTensor*> params;  // in the order they fill the bucket
  std::uint64_t numel = 0;
  int grad_seg = 0;  // the bucket is ready after the backward of this segment (and first used
                     // by the forward of this segment)
  // The distributed optimizer (workloads/plan/distopt/): the bucket's span in Megatron's padded
  // buffer (what it all-gathers and reduce-scatters), and the parameter pieces in this rank's
  // shard of it with their elements (the padding has no main parameter).
  std::uint64_t padded_numel = 0;
  std::uint64_t shard_params = 0, shard_numel = 0;
};

// Every parameter with the tree node holding it, in reverse registration order: the order DDP
// (torch's and Megatron's) expects their gradients to become ready.
std::vector<std::pair<const ParamTensor*, int>> gradient_order(const StepStructure& s);

// Parameters in reverse registration order (the order their gradients become ready, as DDP
// assumes and its bucket rebuild after the first step records); a bucket is closed once its
// bytes reach the limit: 1 MiB for the first (dist._DEFAULT_FIRST_BUCKET_BYTES), then
// cap_mb MiB (bucket_cap_mb). So a bucket exceeds its cap by less than its last tensor.
std::vector<DdpBucket> ddp_buckets(const StepStructure& s, DType grad_dtype, double cap_mb);

// The buckets of --plan ddp: torch DDP's (above), or the distributed optimizer's
// (workloads/plan/distopt/distributed_optimizer.hpp).
std::vector<DdpBucket> ddp_plan_buckets(const ResolvedRequest& r, const StepStructure& s);

// PowerSGD rank R on one bucket: every gradient viewed as a matrix [shape[0], numel/shape[0]]
// with r = min(rows, cols, R) is compressed when (rows + cols) * r * 2 < rows * cols
// (min_compression_rate 2); P holds rows x r, Q cols x r. One all-reduce of the uncompressed
// tensors, one of every P, one of every Q (elements; 0 when none).
struct PowerSgdSplit {
  std::uint64_t uncompressed = 0, p = 0, q = 0;
};
PowerSgdSplit powersgd_split(const DdpBucket& bucket, int rank);

// The broadcast of the module's buffers before a forward (DistributedDataParallel's
// `broadcast_buffers`, on by default: `_pre_forward` -> `_sync_buffers` ->
// `_broadcast_coalesced` from rank 0, each forward after one that synced gradients, which is
// every forward here, as every micro-batch's backward all-reduces). The models' one buffer is
// the rotary embedding's `inv_freq` (rotary dims / 2 fp32 values, transformers' model-level
// rotary), 128 B for Qwen2.5-0.5B, in one coalesced broadcast; the forward's first compute
// waits for it, as torch's stream waits on the broadcast's work. None without rotary. Counted
// with the unit of the forward's first compute item (`ops.compute` filled first).
void add_ddp_buffer_broadcast(const ResolvedRequest& r, const std::string& prefix, PhaseOps& ops);

// What DDP adds to micro-batch `mb`'s forward: the buffers' broadcast (torch), or the
// distributed optimizer's bucket all-gathers (the first micro-batch).
void add_ddp_forward_items(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets, int mb,
                           const std::string& prefix, PhaseOps& ops);

// The bucket all-reduces of micro-batch `mb`'s backward (the distributed optimizer's
// reduce-scatters, the last micro-batch only); `bwd_item[seg]` is the backward compute item of
// segment seg, `items` the phase's compute items.
void add_ddp_items(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets, int mb,
                   const std::vector<int>& bwd_item, int items, const std::string& prefix,
                   PhaseOps& ops);

}  // namespace collreplay
