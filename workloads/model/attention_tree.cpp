// Each family's attention block as transformers registers and runs it.
#include "workloads/model/tree_parts.hpp"

namespace collreplay::tree {
namespace {

// Not a module in PyTorch: the scores/context batched GEMMs (SDPA) before the output projection.
int add_core(ModuleTree& t, int attn, const ModelConfig& m) {
  return add_synthetic(t, attn, "core", ComputeKind::attention_core, m.qk_dim(), m.v_dim());
}

// modeling_llama.py (mistral, qwen2, mixtral, qwen2_moe alike): q, k, v, o projections.
// modeling_qwen3.py / qwen3_moe adds q_norm and k_norm, RMSNorm(head_dim) on every head, run
// right after their projections.
int add_grouped_query(ModuleTree& t, int attn, const ModelConfig& m, int tp) {
  const std::int64_t q = m.heads * m.head_dim / tp, kv = m.kv_heads * m.head_dim / tp;
  const int qp = add_linear(t, attn, "q_proj", m.hidden, q, m.qkv_bias);
  const int kp = add_linear(t, attn, "k_proj", m.hidden, kv, m.qkv_bias);
  const int vp = add_linear(t, attn, "v_proj", m.hidden, kv, m.qkv_bias);
  const int op = add_linear(t, attn, "o_proj", q, m.hidden, m.o_bias);
  const int in = add_input_grads(t, attn, 3, m.hidden);
  // Partial rotary (Nemotron's partial_rotary_factor) turns rotary_dim of each head; the rest
  // passes through (step_structure adds the cat that joins them).
  const std::int64_t q_rot = m.heads / tp * m.rotary_dim(), kv_rot = m.kv_heads / tp * m.rotary_dim();
  if (!m.qk_norm) {
    const int rotary = add_synthetic(t, attn, "rotary", ComputeKind::rotary, q_rot, kv_rot);
    const int core = add_core(t, attn, m);
    t.nodes[attn].exec_children = {in, qp, kp, vp, rotary, core, op};
    return attn;
  }
  const int qn = add_norm(t, attn, "q_norm", m.head_dim, false, m.heads / tp);
  const int kn = add_norm(t, attn, "k_norm", m.head_dim, false, m.kv_heads / tp);
  const int rotary = add_synthetic(t, attn, "rotary", ComputeKind::rotary, q_rot, kv_rot);
  const int core = add_core(t, attn, m);
  t.nodes[attn].exec_children = {in, qp, qn, kp, kn, vp, rotary, core, op};
  return attn;
}

// modeling_deepseek_v3.py DeepseekV3Attention (multi-head latent attention): q through a
// low-rank q_a_proj -> q_a_layernorm -> q_b_proj (or one q_proj when q_lora_rank is null);
// k and v from kv_a_proj_with_mqa's latent (kv_lora_rank) through kv_a_layernorm -> kv_b_proj,
// plus one shared rope key (qk_rope_head_dim); o_proj from heads x v_head_dim.
int add_latent(ModuleTree& t, int attn, const ModelConfig& m, int tp) {
  const std::int64_t heads = m.heads / tp;
  std::vector<int> run;
  run.push_back(add_input_grads(t, attn, 2, m.hidden));
  if (m.q_lora_rank > 0) {
    run.push_back(add_linear(t, attn, "q_a_proj", m.hidden, m.q_lora_rank, m.qkv_bias));
    run.push_back(add_norm(t, attn, "q_a_layernorm", m.q_lora_rank, false, 1));
    run.push_back(add_linear(t, attn, "q_b_proj", m.q_lora_rank, heads * m.qk_dim(), false));
  } else {
    run.push_back(add_linear(t, attn, "q_proj", m.hidden, heads * m.qk_dim(), false));
  }
  run.push_back(add_linear(t, attn, "kv_a_proj_with_mqa", m.hidden,
                           m.kv_lora_rank + m.qk_rope_head_dim, m.qkv_bias));
  run.push_back(add_norm(t, attn, "kv_a_layernorm", m.kv_lora_rank, false, 1));
  run.push_back(add_linear(t, attn, "kv_b_proj", m.kv_lora_rank,
                           heads * (m.qk_nope_head_dim + m.v_head_dim), false));
  const int op = add_linear(t, attn, "o_proj", heads * m.v_head_dim, m.hidden, m.o_bias);
  run.push_back(add_synthetic(t, attn, "rotary", ComputeKind::rotary,
                              heads * m.qk_rope_head_dim, m.qk_rope_head_dim));
  run.push_back(add_core(t, attn, m));
  run.push_back(op);
  t.nodes[attn].exec_children = run;
  return attn;
}

// modeling_gpt_neox.py GPTNeoXAttention: one fused query_key_value [3 * hidden, hidden] and
// dense, both with attention_bias; rotary on rotary_pct of each head.
int add_neox(ModuleTree& t, int attn, const ModelConfig& m, int tp) {
  const std::int64_t width = m.heads * m.head_dim / tp;
  const int qkv = add_linear(t, attn, "query_key_value", m.hidden, 3 * width, m.qkv_bias);
  const int dense = add_linear(t, attn, "dense", width, m.hidden, m.o_bias);
  const std::int64_t rotated = m.heads / tp * m.rotary_dim();
  const int rotary = add_synthetic(t, attn, "rotary", ComputeKind::rotary, rotated, rotated);
  const int core = add_core(t, attn, m);
  t.nodes[attn].exec_children = {qkv, rotary, core, dense};
  return attn;
}

}  // namespace

int add_attention(ModuleTree& t, int layer_node, const ModelConfig& m, int tp) {
  const int attn = t.add(layer_node, m.is_neox() ? "attention" : "self_attn");
  t.nodes[attn].attention = true;
  if (m.is_mla()) return add_latent(t, attn, m, tp);
  if (m.is_neox()) return add_neox(t, attn, m, tp);
  return add_grouped_query(t, attn, m, tp);
}

}  // namespace collreplay::tree
