#include "bench/flags/workload_flags.hpp"

#include <CLI/CLI.hpp>

namespace collreplay {
namespace {

void add_tensor_parallel_options(CLI::App& app, WorkloadRequest& q) {
  app.add_option("--tp", q.tp, "tensor-parallel degree (consecutive ranks within a node)")
      ->capture_default_str();
  app.add_flag("--no-sequence-parallel{false}", q.sequence_parallel,
               "TP without sequence parallelism: all-reduce after attention and MLP");
  app.add_flag("--async-tp", q.async_tp, "TP collectives overlap the GEMM beside them");
  app.add_option("--tp-style", q.tp_style,
                 "auto (megatron with --distributed-optimizer, else torch) | torch (autograd saves "
                 "each column GEMM's gathered input) | megatron (Megatron-LM and Transformer "
                 "Engine save the sequence shard and gather it again in backward)")
      ->capture_default_str();
}

}  // namespace

void add_workload_options(CLI::App& app, WorkloadRequest& q) {
  app.add_option("--model", q.model,
                 "catalog model name, or a Hugging Face config.json (or the folder holding it)")
      ->capture_default_str();
  app.add_option("--catalog-dir", q.catalog_dir,
                 "directory searched for <model>.json before the built-in catalog");
  app.add_option("--plan", q.plan, "fsdp1 | fsdp2 | ddp")->capture_default_str();
  app.add_option("--wrap", q.wrap, "block | submodule | size[:N] (N default 1e8)")
      ->capture_default_str();
  app.add_option("--world", q.world, "ranks in the job")->capture_default_str();
  app.add_option("--gpus-per-node", q.gpus_per_node, "ranks per node")->capture_default_str();
  app.add_option("--rank", q.rank, "rank whose schedule is printed")->capture_default_str();
  app.add_option("--micro-batch", q.micro_batch, "sequences per micro-batch")
      ->capture_default_str();
  app.add_option("--seq", q.seq, "tokens per sequence")->capture_default_str();
  app.add_option("--micro-batches", q.micro_batches,
                 "gradient-accumulation micro-batches per step (with --pp: the pipeline's)")
      ->capture_default_str();
  app.add_option("--pp", q.pipeline.pp,
                 "pipeline stages (pp outermost: rank = stage x world/pp + local rank)")
      ->capture_default_str();
  app.add_option("--pp-schedule", q.pipeline.schedule,
                 "gpipe | 1f1b | interleaved:V (V stages per rank), as torch.distributed."
                 "pipelining runs them (default 1f1b)");
  app.add_option("--pp-layers", q.pipeline.layers,
                 "decoder layers per stage (interleaved: per virtual stage), e.g. 20,20,20,20 "
                 "(default: an even split; embedding on the first stage, norm, head and loss on "
                 "the last)");
  app.add_option("--ep", q.ep, "expert-parallel degree (consecutive ranks)")->capture_default_str();
  app.add_option("--routing", q.routing, "uniform | zipf:S | hot:K")->capture_default_str();
  app.add_option("--seed", q.seed, "routing seed")->capture_default_str();
  app.add_option("--layers", q.layers, "-1: all decoder layers; N: the first N plus the root")
      ->capture_default_str();
  app.add_flag("--use-orig-params", q.use_orig_params,
               "FSDP1: align each parameter start to 16 bytes");
  app.add_option("--experts", q.experts,
                 "looped (transformers' loop: a GEMM per expert, host syncs) | grouped "
                 "(torch._grouped_mm over the stacked experts, as torchtitan runs them)")
      ->capture_default_str();
  app.add_option("--experts-layout", q.experts_layout, "per-expert | stacked")
      ->capture_default_str();
  app.add_option("--sharding", q.sharding,
                 "full (FULL_SHARD) | grad-op (SHARD_GRAD_OP) | hybrid "
                 "(HYBRID_SHARD) | hybrid-zero2 (_HYBRID_SHARD_ZERO2)")
      ->capture_default_str();
  app.add_option("--shard-group", q.shard_group,
                 "hybrid: ranks per FSDP shard group (default: GPUs "
                 "per node / tp); all-reduce across the groups");
  add_tensor_parallel_options(app, q);
  app.add_option("--loss", q.loss,
                 "eager (F.cross_entropy over an fp32 copy of the logits) | fused (one kernel over "
                 "the bf16 logits, gradient in place: flash-attn's, llm-foundry's default)")
      ->capture_default_str();
  app.add_option("--mesh", q.mesh, "MoE mesh DPxEPxTP (dp_shard x ep x tp), product = world");
  app.add_option("--bucket-cap-mb", q.bucket_cap_mb,
                 "ddp: gradient bucket cap in MiB (first bucket 1 MiB)")
      ->capture_default_str();
  app.add_option("--grad-compression", q.grad_compression, "ddp: none | powersgd:R")
      ->capture_default_str();
  app.add_flag("--distributed-optimizer", q.distributed_optimizer,
               "ddp: Megatron's DistributedOptimizer (ZeRO-1): bucket reduce-scatters in "
               "backward, Adam on this rank's shard, bucket all-gathers before the next forward");
  app.add_option("--ddp-bucket-size", q.ddp_bucket_size,
                 "--distributed-optimizer: parameters per bucket (default max(4e7, 1e6 x "
                 "data-parallel ranks), Megatron's)");
  app.add_option("--a2a", q.a2a, "MoE all-to-all: flat | hierarchical")->capture_default_str();
  app.add_option("--a2a-dtype", q.a2a_dtype,
                 "dispatch dtype: bf16 | fp16 | fp8 (default: param dtype)");
  app.add_option("--a2a-combine-dtype", q.a2a_combine_dtype,
                 "combine dtype (default: param dtype)");
  app.add_option("--param-dtype", q.param_dtype, "all-gather and compute dtype: bf16 | fp32")
      ->capture_default_str();
  app.add_option("--reduce-dtype", q.reduce_dtype, "reduce-scatter dtype: bf16 | fp32")
      ->capture_default_str();
  app.add_option("--prefetch", q.prefetch,
                 "all-gathers issued ahead of the compute that needs them")
      ->capture_default_str();
  app.add_option("--capacity-factor", q.capacity_factor, "MoE capacity factor (0: no limit)")
      ->capture_default_str();
  app.add_flag("--pad-to-capacity", q.pad_to_capacity,
               "pad every expert to capacity: fixed all_to_all sizes");
  app.add_option("--replicate-hot", q.replicate_hot,
                 "replicate the K hottest experts onto every rank")
      ->capture_default_str();
  app.add_flag("--no-activation-checkpointing{false}", q.activation_checkpointing,
               "no recompute of each decoder layer before its backward");
  app.add_option("--optimizer", q.optimizer,
                 "auto (torch AdamW's default for the plan) | adamw-loop | adamw-foreach | "
                 "adamw-fused | none")
      ->capture_default_str();
  app.add_option("--host-time", q.host_time,
                 "eager (PyTorch's host time per kernel launch, read on one H100 machine's host) "
                 "| none (a host that never holds the GPU back) | calibrate (this host's, from "
                 "sweeps/gpu/travels/host_time_calibrate.py) | FILE (a calibration written by it)")
      ->capture_default_str();
}

CLI::Option* add_trace_option(CLI::App& app, WorkloadRequest& q) {
  CLI::Option* trace = app.add_option(
      "--trace", q.trace,
      "import the step of a torch.profiler Chrome trace (.json or .json.gz; rank 0's for every "
      "rank of a symmetric job; 'dir/rank%d.trace.json' or a folder of *.pt.trace.json[.gz]: "
      "one per rank)");
  app.add_option("--trace-step", q.trace_step,
                 "with --trace: the ProfilerStep#N to import (default: the step of median "
                 "duration)")
      ->check(CLI::Range(0, 1000000000))
      ->needs(trace);
  return trace;
}

}  // namespace collreplay
