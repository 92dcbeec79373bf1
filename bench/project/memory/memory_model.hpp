// What one GPU holds at the peak of a training step under a layout: its shard of the parameters,
// of the gradients and of the optimizer states, the units gathered around the running one, and
// the activations of one micro-batch (with recompute: each decoder layer's input plus one layer's
// full set; without: every layer's full set), plus the logits the loss reads.
// Conventions (bench/advise/README.md): parameters in --param-dtype and gradients in
// --reduce-dtype, sharded as the schedule shards them; AdamW's two moments in the parameter dtype,
// no master copy, as the schedule's optimizer step times them (torch.optim.AdamW over bf16
// parameters), or --optimizer-states fp32: an fp32 master copy and fp32 moments (12 bytes per
// parameter, what mixed-precision recipes keep). The distributed optimizer (--distributed-
// optimizer) holds every parameter and gradient of its padded buffer and keeps fp32 main
// parameters and fp32 moments over its shard alone, whatever --optimizer-states says.
#pragma once
#include <cstdint>
#include <string>

#include "workloads/model/model.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

enum class OptimizerStates { plan, fp32 };

// "plan" or "fp32"; UsageError otherwise.
OptimizerStates parse_optimizer_states(const std::string& text);

struct MemoryPerGpu {
  std::uint64_t params_bytes = 0;     // this rank's parameter shard (DDP: every parameter)
  std::uint64_t grads_bytes = 0;      // its gradients, in the reduce dtype
  std::uint64_t optimizer_bytes = 0;  // AdamW's moments (and master weights with fp32)
  std::uint64_t gathered_bytes = 0;   // unsharded units and the gradient before its reduce-scatter
  std::uint64_t activations_bytes = 0;  // one micro-batch's saved activations and logits
  std::uint64_t total_bytes() const {
    return params_bytes + grads_bytes + optimizer_bytes + gathered_bytes + activations_bytes;
  }
};

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
