// What a user asks the schedule builder for: model, parallel plan, world and batch shape. Kept as
// plain values (strings for the enumerated choices) so a command line can fill it directly; the
// builder validates everything and throws UsageError naming the first bad field.
#pragma once
#include <cstdint>
#include <string>

#include "workloads/plan/pipeline/pipeline_request.hpp"

namespace collreplay {

struct WorkloadRequest {
  std::string model = "qwen2.5-7b";  // catalog name, or a path to a model .json file
  std::string catalog_dir;     // optional: look for <dir>/<model>.json before the built-in catalog
  std::string plan = "fsdp1";  // fsdp1 | fsdp2 | ddp
  std::string wrap = "block";  // block | submodule | size[:N]   (N defaults to 1e8)
  int world = 8;
  int gpus_per_node = 8;
  int rank = 0;                     // the rank whose schedule is built (MoE row counts differ)
  std::int64_t micro_batch = 1;     // sequences per micro-batch
  std::int64_t seq = 4096;          // tokens per sequence
  int micro_batches = 1;            // gradient-accumulation micro-batches per step
  int ep = 1;                       // expert-parallel degree (1: plain FSDP, every expert gathered)
  std::string routing = "uniform";  // uniform | zipf:S | hot:K
  std::uint64_t seed = 1;
  int layers = -1;               // -1: all decoder layers; N: the first N plus the root
  bool use_orig_params = false;  // FSDP1: 16-byte alignment of every parameter's start
  std::string experts_layout = "per-expert";  // per-expert | stacked
  // How the experts compute: looped (transformers' loop, a GEMM per expert and host syncs) or
  // grouped (torch._grouped_mm over all the rank's experts at once, no sync).
  std::string experts = "looped";
  std::string sharding = "full";  // full | grad-op | hybrid (HYBRID_SHARD) | hybrid-zero2
  int shard_group = 0;            // hybrid: ranks per FSDP shard group (0: gpus_per_node / tp)
  int tp = 1;                     // tensor-parallel degree (consecutive ranks within a node)
  bool sequence_parallel = true;  // TP: all-gather / reduce-scatter (false: all-reduce)
  bool async_tp = false;          // TP collectives overlap the GEMM next to them
  // What a sequence-parallel column GEMM saves for its weight gradient: torch (DTensor's
  // SequenceParallel: autograd keeps the all-gathered input) | megatron (Megatron-LM's and
  // Transformer Engine's linears keep their sequence shard and all-gather it again in backward)
  // | auto: megatron with the distributed optimizer (Megatron's layers come with it), else torch.
  std::string tp_style = "auto";
  bool megatron_tp() const {
    return tp_style == "megatron" || (tp_style == "auto" && distributed_optimizer);
  }
  std::string mesh;               // "DPxEPxTP" (MoE): sets ep and tp, checked against world
  double bucket_cap_mb = 25;      // ddp: bucket cap in MiB (the first bucket is 1 MiB)
  std::string grad_compression = "none";  // ddp: none | powersgd:R
  // ddp: Megatron's DistributedOptimizer (ZeRO-1; workloads/plan/distopt/): bucketed
  // reduce-scatter, the step on the rank's shard, bucketed all-gather before the next forward.
  bool distributed_optimizer = false;
  std::int64_t ddp_bucket_size = 0;  // its parameters per bucket; 0: max(4e7, 1e6 x DP)
  std::string a2a = "flat";               // MoE all-to-all: flat | hierarchical
  std::string a2a_dtype;                  // dispatch dtype (bf16 | fp16 | fp8); empty: param dtype
  std::string a2a_combine_dtype;          // combine dtype; empty: param dtype
  std::string param_dtype = "bf16";       // all-gather / compute dtype
  std::string reduce_dtype = "bf16";      // reduce-scatter dtype
  int prefetch = 1;              // all-gathers in flight ahead of the compute that needs them
  double capacity_factor = 0;    // 0: no capacity limit (no token dropping)
  bool pad_to_capacity = false;  // pad every expert to its capacity: fixed all_to_all sizes
  int replicate_hot = 0;         // the K hottest experts live on every rank: their rows stay local
  bool activation_checkpointing = true;  // per decoder layer (HF gradient checkpointing)
  // eager: F.cross_entropy(logits.float()), an fp32 copy of the logits and of their gradient |
  // fused: one kernel reads the bf16 logits and writes their gradient in place (flash-attn's
  // CrossEntropyLoss, llm-foundry's default for MPT).
  std::string loss = "eager";
  bool fused_loss() const { return loss == "fused"; }
  // auto | adamw-loop | adamw-foreach | adamw-fused | none (workloads/plan/step/optimizer_step.hpp)
  std::string optimizer = "auto";
  // Where the parameters live (auto's foreach needs cuda): cuda | cpu. Not a flag: replay sets
  // cpu for a host replay (MPI backend, BLAS compute); schedules otherwise stand for GPUs.
  std::string param_device = "cuda";
  std::string host_time = "eager";  // eager | none | calibrate | FILE (step/host_time_file.hpp)
  // A torch.profiler trace (or "dir/rank%d.trace.json") to import instead of building from the
  // catalog (workloads/trace/trace_import.hpp); world 0 then means the traced world.
  std::string trace;
  // --trace-step N: the ProfilerStep#N to import; -1: the step of median duration.
  int trace_step = -1;
  // --pp, --pp-schedule, --pp-layers (workloads/plan/pipeline/).
  PipelineRequest pipeline;
};

}  // namespace collreplay
