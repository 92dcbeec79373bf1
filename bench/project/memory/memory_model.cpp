#include "bench/project/memory/memory_model.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/project/memory/gpu_memory.hpp"
#include "common/dtype.hpp"
#include "common/errors.hpp"
#include "workloads/plan/layer_activations.hpp"

namespace collreplay::project {
namespace {

std::uint64_t size_of(const std::string& dtype) { return dtype_size_bytes(parse_dtype(dtype)); }

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Bytes a parameter of fp32 moments and master weights: 12, or 10 when the master is the bf16
// parameter and a 16-bit remainder.
std::uint64_t fp32_state_bytes(OptimizerStates states) {
  return states == OptimizerStates::fp32_remainders ? 10 : 12;
}

}  // namespace

OptimizerStates parse_optimizer_states(const std::string& text) {
  if (text == "plan") return OptimizerStates::plan;
  if (text == "fp32") return OptimizerStates::fp32;
  if (text == "fp32-remainders") return OptimizerStates::fp32_remainders;
  throw UsageError("--optimizer-states '" + text + "': expected plan, fp32 or fp32-remainders");
}

const char* optimizer_states_name(OptimizerStates states) {
  switch (states) {
    case OptimizerStates::plan: return "plan";
    case OptimizerStates::fp32: return "fp32";
    case OptimizerStates::fp32_remainders: return "fp32-remainders";
  }
  return "?";
}

SpanActivations span_activation_bytes(const ModelConfig& m, const WorkloadRequest& r,
                                      std::int64_t first, std::int64_t count, bool head) {
  const std::uint64_t element = size_of(r.param_dtype);
  const auto tp = static_cast<std::uint64_t>(r.tp);
  const bool sequence_split = r.tp > 1 && r.sequence_parallel;
  const auto tokens = static_cast<std::uint64_t>(r.micro_batch * r.seq);
  // Each layer's saved set by its family (dense layers among MoE ones, MLA, shared experts):
  // workloads/plan/layer_activations.hpp.
  std::uint64_t every_layer = 0, largest_layer = 0;
  for (std::int64_t layer = first; layer < first + count; ++layer) {
    const LayerActivations e =
        layer_activation_elements(m, layer, sequence_split, r.megatron_tp());
    const std::uint64_t bytes = tokens * (e.whole + ceil_div(e.split, tp)) * element;
    every_layer += bytes;
    largest_layer = std::max(largest_layer, bytes);
  }
  // The eager loss upcasts the bf16 logits to fp32: both live at once (vocab split by tp); a
  // fused one keeps the logits alone.
  const std::uint64_t logits = head ? tokens * ceil_div(static_cast<std::uint64_t>(m.vocab), tp) *
                                          (element + (r.fused_loss() ? 0 : 4))
                                    : 0;
  if (!r.activation_checkpointing) return {every_layer + logits, 0};
  const auto h = static_cast<std::uint64_t>(m.hidden);
  const std::uint64_t layer_input = tokens * (sequence_split ? ceil_div(h, tp) : h) * element;
  return {static_cast<std::uint64_t>(count) * layer_input + logits, largest_layer};
}

std::uint64_t activation_bytes(const ModelConfig& m, const WorkloadRequest& r) {
  const SpanActivations a = span_activation_bytes(m, r, 0, r.layers < 0 ? m.layers : r.layers, true);
  return a.held + a.transient;
}

namespace {

// Megatron's distributed optimizer: the whole padded parameter and gradient buffers (its buckets'
// all-gather and reduce-scatter sizes), fp32 main parameters and Adam moments over the shard.
MemoryPerGpu distributed_optimizer_memory(const Schedule& s, const ModelConfig& m,
                                          const WorkloadRequest& r, OptimizerStates states) {
  MemoryPerGpu mem;
  std::uint64_t shard_numel = 0;
  for (const UnitSummary& u : s.units) {
    mem.params_bytes += u.allgather_bytes;
    mem.grads_bytes += u.reduce_scatter_bytes;
    shard_numel += u.shard_bytes / size_of(r.param_dtype);
  }
  mem.optimizer_bytes = shard_numel * fp32_state_bytes(states);
  mem.activations_bytes = activation_bytes(m, r);
  mem.grads_persistent = true;
  return mem;
}

}  // namespace

MemoryPerGpu memory_per_gpu(const Schedule& s, const ModelConfig& m, const WorkloadRequest& r,
                            OptimizerStates states) {
  if (r.distributed_optimizer) return distributed_optimizer_memory(s, m, r, states);
  const std::uint64_t param = size_of(r.param_dtype);
  const std::uint64_t reduce = size_of(r.reduce_dtype);
  std::uint64_t shard_numel = 0, root_gathered = 0, largest_gathered = 0;
  for (const UnitSummary& u : s.units) {
    shard_numel += u.shard_bytes / param;
    if (u.name == "root")
      root_gathered = u.allgather_bytes;
    else
      largest_gathered = std::max(largest_gathered, u.allgather_bytes);
  }
  MemoryPerGpu mem;
  mem.params_bytes = shard_numel * param;
  mem.grads_bytes = shard_numel * reduce;
  mem.optimizer_bytes = states == OptimizerStates::plan ? 2 * shard_numel * param
                                                       : fp32_state_bytes(states) * shard_numel;
  // FULL_SHARD keeps the root gathered from forward to backward; around the running unit, its
  // prefetched successors are gathered too, and its full gradient waits for the reduce-scatter.
  const std::uint64_t largest = std::max(root_gathered, largest_gathered);
  mem.gathered_bytes = root_gathered +
                       static_cast<std::uint64_t>(1 + r.prefetch) * largest_gathered +
                       largest / param * reduce;
  mem.activations_bytes = activation_bytes(m, r);
  return mem;
}

MemoryFit memory_fit(const MemoryPerGpu& memory, const MemoryBudget& budget) {
  const std::uint64_t room = budget.tensor_room_bytes();
  if (memory.reserved_bytes(kSlackHigh) <= room) return MemoryFit::fits;
  return memory.reserved_bytes(kSlackLow) <= room ? MemoryFit::tight : MemoryFit::no_fit;
}

std::string gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ULL << 30));
  return text;
}

}  // namespace collreplay::project
