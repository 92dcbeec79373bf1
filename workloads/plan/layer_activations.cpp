#include "workloads/plan/layer_activations.hpp"

namespace collreplay {
namespace {

using u64 = std::uint64_t;
u64 u(std::int64_t v) { return static_cast<u64>(v); }

// Inputs of every projection and the attention core's operands and output.
u64 attention_elements(const ModelConfig& m) {
  const u64 h = u(m.hidden), heads = u(m.heads);
  if (m.is_mla()) {
    const u64 q_latent = m.q_lora_rank > 0 ? 2 * u(m.q_lora_rank) : 0;  // q_a out, its norm out
    const u64 kv_latent = u(m.kv_lora_rank + m.qk_rope_head_dim) + u(m.kv_lora_rank);
    const u64 q = heads * u(m.qk_dim()), k = q, v = heads * u(m.v_dim());
    const u64 kv_b = heads * u(m.qk_nope_head_dim + m.v_head_dim);
    return q_latent + kv_latent + kv_b + q + k + v + heads * u(m.v_dim());
  }
  const u64 q = heads * u(m.head_dim), kv = u(m.kv_heads) * u(m.head_dim);
  if (m.is_neox()) return 3 * h + h;                 // query_key_value out, context
  const u64 norms = m.qk_norm ? q + kv : 0;          // q_norm, k_norm inputs
  return q + 2 * kv + q + norms;                     // q, k, v, context
}

}  // namespace

LayerActivations layer_activation_elements(const ModelConfig& m, std::int64_t layer,
                                           bool sequence_split, bool outputs_split) {
  const u64 h = u(m.hidden);
  LayerActivations e;
  (sequence_split && outputs_split ? e.split : e.whole) += 2 * h;  // the two norms' outputs
  (sequence_split ? e.split : e.whole) += 2 * h;  // the two norms' inputs (the residual stream)
  e.split += attention_elements(m);
  if (m.plain_mlp()) {
    // GPT-NeoX: dense_h_to_4h out (GELU's input), GELU out; Nemotron: relu's output (its
    // backward and square's read it), the square (down_proj's input).
    e.split += 2 * u(m.intermediate);
  } else if (m.moe_layer(layer)) {
    const u64 k = u(m.top_k);
    e.whole += u(m.experts) + 2 * k * h;          // router logits; rows permuted there and back
    e.split += 4 * k * u(m.expert_intermediate);  // gate, up, SiLU(gate), product, per row
    e.split += 4 * u(m.shared_intermediate);      // the shared expert on every token
  } else {
    e.split += 4 * u(m.intermediate);  // gate, up, SiLU(gate), SiLU(gate) * up
  }
  return e;
}

}  // namespace collreplay
