// What one GPU holds at the peak of a training step under a layout: its shard of the parameters,
// of the gradients and of the optimizer states, the units gathered around the running one, and
// the activations of one micro-batch (with recompute: each decoder layer's input plus one layer's
// full set; without: every layer's full set), plus the logits the loss reads.
// Conventions (bench/advise/README.md): parameters in --param-dtype and gradients in
// --reduce-dtype, sharded as the schedule shards them; AdamW's two moments in the parameter dtype,
// no master copy, as the schedule's optimizer step times them (torch.optim.AdamW over bf16
// parameters), or --optimizer-states fp32: an fp32 master copy and fp32 moments (12 bytes per
// parameter, what mixed-precision recipes keep), or fp32-remainders: fp32 moments and the 16-bit
// remainder that makes each bf16 parameter its fp32 master again (10 bytes: Apex's
// DistributedFusedAdam with store_param_remainders, which NeMo 1 sets for bf16 O2 training). The
// distributed optimizer (--distributed-optimizer) holds every parameter and gradient of its
// padded buffer and keeps fp32 main parameters and fp32 moments over its shard alone (12 bytes;
// 10 with fp32-remainders).
#pragma once
#include <cstdint>
#include <string>

#include "bench/project/memory/gpu_memory.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

enum class OptimizerStates { plan, fp32, fp32_remainders };

// "plan", "fp32" or "fp32-remainders"; UsageError otherwise. optimizer_states_name: the inverse.
OptimizerStates parse_optimizer_states(const std::string& text);
const char* optimizer_states_name(OptimizerStates states);

struct MemoryPerGpu {
  std::uint64_t params_bytes = 0;     // this rank's parameter shard (DDP: every parameter)
  std::uint64_t grads_bytes = 0;      // its gradients, in the reduce dtype
  std::uint64_t optimizer_bytes = 0;  // AdamW's moments (and master weights with fp32)
  std::uint64_t gathered_bytes = 0;   // unsharded units and the gradient before its reduce-scatter
  std::uint64_t activations_bytes = 0;  // one micro-batch's saved activations and logits
  // Megatron's distributed optimizer keeps its gradients in one buffer allocated once; FSDP's and
  // DDP's are freed by zero_grad(set_to_none=True) and allocated again in backward.
  bool grads_persistent = false;
  std::uint64_t total_bytes() const {
    return params_bytes + grads_bytes + optimizer_bytes + gathered_bytes + activations_bytes;
  }
  // What outlives the step, allocated once: no allocator slack on it.
  std::uint64_t persistent_bytes() const {
    return params_bytes + optimizer_bytes + (grads_persistent ? grads_bytes : 0);
  }
  // What the caching allocator reserves at the step's peak at `slack` on what churns.
  std::uint64_t reserved_bytes(double slack) const {
    const std::uint64_t stays = persistent_bytes();
    return stays + static_cast<std::uint64_t>(static_cast<double>(total_bytes() - stays) *
                                              (1 + slack));
  }
};

// fits: room at the measured high end of the allocator's slack; tight: at its low end only.
enum class MemoryFit { fits, tight, no_fit };
MemoryFit memory_fit(const MemoryPerGpu& memory, const MemoryBudget& budget);

// `schedule` is the request's own (its units carry each shard's size).
MemoryPerGpu memory_per_gpu(const Schedule& schedule, const ModelConfig& model,
                            const WorkloadRequest& request, OptimizerStates states);

// Activation bytes of one micro-batch on one rank of `request` (its tp, sequence parallelism and
// checkpointing), logits included.
std::uint64_t activation_bytes(const ModelConfig& model, const WorkloadRequest& request);

// One micro-batch's activations over decoder layers [first, first + count) on one rank: what
// stays saved until its backward (`held`: with recompute each layer's input, without every
// layer's set; with the head, the logits the loss reads) and what one layer's recompute needs
// beside them at the peak (`transient`). activation_bytes is held + transient over every layer.
struct SpanActivations {
  std::uint64_t held = 0, transient = 0;
};
SpanActivations span_activation_bytes(const ModelConfig& model, const WorkloadRequest& request,
                                      std::int64_t first, std::int64_t count, bool head);

}  // namespace collreplay::project
