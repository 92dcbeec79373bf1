// Megatron-LM's DistributedOptimizer (ZeRO-1) under its DistributedDataParallel with
// overlap_grad_reduce and overlap_param_gather, as NeMo runs it (optim mcore_distributed_optim;
// Apex's distributed_fused_adam moves the same messages). Read from megatron/core:
// distributed/distributed_data_parallel.py, distributed/param_and_grad_buffer.py,
// optimizer/distrib_optimizer.py and optimizer/param_layout.py.
//  - Buffer and buckets: parameters in reverse registration order (backprop order), each start
//    aligned to 64 elements (pad_param_start); a bucket closes once it spans bucket_size elements
//    (default max(40,000,000, 1,000,000 x DP): resolve_ddp_bucket_size), its end padded to a
//    multiple of lcm(DP, 128) (pad_bucket_end), so every rank's shard of it is whole.
//  - Backward (the last micro-batch only: the others run under no_sync): a bucket's gradients
//    are reduce-scattered over the data-parallel group once all of them are ready, in the
//    gradient buffer's dtype (--reduce-dtype; Megatron and NeMo reduce bf16 models in fp32).
//  - Optimizer: Adam on this rank's shard only, over fp32 main parameters (the fused multi-tensor
//    kernel of TE's / Apex's FusedAdam), then each shard piece copied into the bf16 parameter
//    buffer (_copy_main_params_to_model_params; a .float() of each gradient piece first when the
//    buffer is not fp32).
//  - Forward (the first micro-batch of the next step; a step's schedule opens with it): buckets
//    all-gathered in the parameter dtype. The forward pre-hook of the first module holding a
//    bucket's parameters waits for its all-gather (dispatching it if nothing did) and then
//    dispatches the next bucket's (finish_param_sync; buckets chained last to first), so one
//    all-gather runs ahead of the compute and the first one is exposed.
// Groups: the data-parallel group of the rank's TP index (GroupKind::replicate; world without
// TP). Pipeline stages after the first keep one bucket (bucket_size None): distopt_buckets takes
// the size it is given.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/plan/parallel/ddp_buckets.hpp"
#include "workloads/plan/parallel/phase_ops.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step_structure.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// UsageError naming the flag when --distributed-optimizer or --ddp-bucket-size do not apply.
void check_distributed_optimizer(const ResolvedRequest& r);

// Data-parallel ranks the optimizer state is sharded over (those with the rank's TP index).
int distopt_data_parallel(const ResolvedRequest& r);

// --ddp-bucket-size, else Megatron's default for the data-parallel size.
std::uint64_t distopt_bucket_elements(const ResolvedRequest& r);

// The buckets of the buffer in Megatron's layout, with this rank's shard of each; `bucket_elements`
// 0 puts every parameter in one bucket.
std::vector<DdpBucket> distopt_buckets(const ResolvedRequest& r, const StepStructure& s,
                                       std::uint64_t bucket_elements);

// The forward's all-gathers (the first micro-batch: forward compute item k is segment k, and a
// bucket's grad_seg is its first forward use) and the backward's reduce-scatters (the last
// micro-batch; `bwd_item[seg]` is segment seg's backward item, `items` the phase's count),
// appended to the phase's ops.
void add_distopt_gathers(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                         const std::string& prefix, PhaseOps& ops);
void add_distopt_reduce_scatters(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                                 const std::vector<int>& bwd_item, int items,
                                 const std::string& prefix, PhaseOps& ops);

// The optimizer step on the shard, after every collective of the last micro-batch (its ops
// start at `last_mb`); nothing with --optimizer none.
void append_distopt_step(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                         std::size_t last_mb, Schedule& out);

// Bucket b as a unit: its parameters, this rank's shard of it, its all-gather and reduce-scatter.
UnitSummary distopt_bucket_summary(const ResolvedRequest& r, const DdpBucket& bucket,
                                   std::size_t b);

}  // namespace collreplay
