#include "bench/project/memory/memory_model.hpp"

#include <algorithm>
#include <cstdio>

#include "bench/project/memory/gpu_memory.hpp"
#include "common/dtype.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

std::uint64_t size_of(const std::string& dtype) { return dtype_size_bytes(parse_dtype(dtype)); }

// Elements one decoder layer saves per token for its backward, on one rank. Split by tp: heads,
// the MLP's intermediate and (with sequence parallelism) the norms' inputs, which are
// sequence-sharded; kept whole: the norms' outputs, which the sequence-parallel all-gather makes
// whole and autograd keeps for the column-parallel GEMMs (torchtitan's DTensor plan).
struct LayerElements {
  std::uint64_t whole = 0, split = 0;  // split ones are divided by tp
};

LayerElements layer_elements(const ModelConfig& m, bool sequence_split) {
  const auto h = static_cast<std::uint64_t>(m.hidden);
  const auto i = static_cast<std::uint64_t>(m.intermediate);
  const auto q = static_cast<std::uint64_t>(m.heads * m.head_dim);
  const auto kv = static_cast<std::uint64_t>(m.kv_heads * m.head_dim);
  LayerElements e;
  e.whole += 2 * h;                               // the two norms' outputs
  (sequence_split ? e.split : e.whole) += 2 * h;  // the two norms' inputs (the residual stream)
  e.split += q + 2 * kv + q;                      // q, k, v and attention's output
  if (m.is_moe()) {
    const auto k = static_cast<std::uint64_t>(m.top_k);
    e.whole += 2 * k * h;  // each token's top-k rows permuted to the experts and back
    e.split += 4 * k * i;  // w1 and w3 outputs, the activation and its product, per row
  } else {
    e.split += 4 * i;  // gate and up outputs, SiLU(gate) and SiLU(gate) * up
  }
  return e;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

OptimizerStates parse_optimizer_states(const std::string& text) {
  if (text == "plan") return OptimizerStates::plan;
  if (text == "fp32") return OptimizerStates::fp32;
  throw UsageError("--optimizer-states '" + text + "': expected plan or fp32");
}

std::uint64_t activation_bytes(const ModelConfig& m, const WorkloadRequest& r) {
  const std::uint64_t element = size_of(r.param_dtype);
  const auto tp = static_cast<std::uint64_t>(r.tp);
  const bool sequence_split = r.tp > 1 && r.sequence_parallel;
  const auto tokens = static_cast<std::uint64_t>(r.micro_batch * r.seq);
  const auto layers = static_cast<std::uint64_t>(r.layers < 0 ? m.layers : r.layers);
  const LayerElements e = layer_elements(m, sequence_split);
  const std::uint64_t full_layer = tokens * (e.whole + ceil_div(e.split, tp)) * element;
  // The loss upcasts the bf16 logits to fp32: both live at once (vocab split by tp).
  const std::uint64_t logits =
      tokens * ceil_div(static_cast<std::uint64_t>(m.vocab), tp) * (element + 4);
  if (!r.activation_checkpointing) return layers * full_layer + logits;
  const auto h = static_cast<std::uint64_t>(m.hidden);
  const std::uint64_t layer_input = tokens * (sequence_split ? ceil_div(h, tp) : h) * element;
  return layers * layer_input + full_layer + logits;
}

MemoryPerGpu memory_per_gpu(const Schedule& s, const ModelConfig& m, const WorkloadRequest& r,
                            OptimizerStates states) {
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
  mem.optimizer_bytes =
      states == OptimizerStates::plan ? 2 * shard_numel * param : 3 * shard_numel * 4;
  // FULL_SHARD keeps the root gathered from forward to backward; around the running unit, its
  // prefetched successors are gathered too, and its full gradient waits for the reduce-scatter.
  const std::uint64_t largest = std::max(root_gathered, largest_gathered);
  mem.gathered_bytes = root_gathered +
                       static_cast<std::uint64_t>(1 + r.prefetch) * largest_gathered +
                       largest / param * reduce;
  mem.activations_bytes = activation_bytes(m, r);
  return mem;
}

std::string gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ULL << 30));
  return text;
}

}  // namespace collreplay::project
