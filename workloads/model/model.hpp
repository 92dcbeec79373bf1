// A model as Hugging Face transformers builds it from its config.json (as downloaded from the
// hub, or a catalog file in the same format): the family's rules turn the config's fields into
// every parameter tensor (module_tree.hpp). See workloads/catalog/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collreplay {

// transformers' model_type values this reader knows, each with its modeling_<type>.py rules.
enum class ModelFamily {
  llama, mistral, qwen2, qwen3, mixtral, qwen2_moe, qwen3_moe, deepseek_v3, gpt_neox, nemotron
};
std::string_view family_name(ModelFamily family);  // the model_type string
std::string supported_families();                  // "llama, mistral, ..." for errors

struct ModelConfig {
  std::string name, source, architecture, model_type;
  ModelFamily family = ModelFamily::llama;
  std::int64_t hidden = 0, intermediate = 0, layers = 0;  // intermediate: the dense MLP's
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  bool tied_embeddings = false, qkv_bias = false, o_bias = false, mlp_bias = false;
  bool qk_norm = false;  // Qwen3: RMSNorm(head_dim) on each head of q and k
  // Mixture of experts (0 experts: a dense model).
  std::int64_t experts = 0, top_k = 0;
  std::int64_t expert_intermediate = 0;  // each routed expert's width (Mixtral: intermediate)
  std::int64_t shared_intermediate = 0;  // the shared expert(s) MLP, run on every token (0: none)
  bool shared_expert_gate = false;       // Qwen2-MoE: sigmoid(Linear(hidden, 1)) on the shared one
  std::int64_t first_dense_layers = 0;   // DeepSeek first_k_dense_replace
  std::int64_t sparse_step = 1;          // Qwen-MoE decoder_sparse_step
  std::vector<std::int64_t> mlp_only_layers;  // Qwen-MoE: dense layers by index
  // Multi-head latent attention (DeepSeek-V3; kv_lora_rank 0: none). q_lora_rank 0: q_proj.
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  // GPT-NeoX: LayerNorm with bias, GELU MLP, fused query_key_value. Nemotron: LayerNorm1P with
  // bias, squared-ReLU MLP. Both rotate rotary_pct of each head (partial_rotary_factor).
  double rotary_pct = 1.0;
  bool parallel_residual = false;

  bool is_moe() const { return experts > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  bool is_neox() const { return family == ModelFamily::gpt_neox; }
  bool is_nemotron() const { return family == ModelFamily::nemotron; }
  // Norms are nn.LayerNorm with a bias (GPT-NeoX; Nemotron's LayerNorm1P), not RMSNorm.
  bool layer_norm() const { return is_neox() || is_nemotron(); }
  // The dense MLP is up -> activation -> down (GELU, squared ReLU), not SiLU-gated.
  bool plain_mlp() const { return is_neox() || is_nemotron(); }
  // Whether decoder layer `layer` holds experts (false for every layer of a dense model).
  bool moe_layer(std::int64_t layer) const;
  // Attention dims per head: q and k (MLA: nope + rope) and v.
  std::int64_t qk_dim() const { return is_mla() ? qk_nope_head_dim + qk_rope_head_dim : head_dim; }
  std::int64_t v_dim() const { return is_mla() ? v_head_dim : head_dim; }
  // Dims of each head that rotary turns (MLA: the rope part; GPT-NeoX and Nemotron: rotary_pct
  // of it, int(head_dim * pct) as their rotary embeddings take it; 1 elsewhere).
  std::int64_t rotary_dim() const {
    if (is_mla()) return qk_rope_head_dim;
    return static_cast<std::int64_t>(static_cast<double>(head_dim) * rotary_pct);
  }
};

// Parses one config.json; `origin` names it in errors. Throws UsageError naming the file, the
// first missing or bad field and, for an unknown model_type, the families supported.
ModelConfig parse_model_json(std::string_view text, std::string_view origin);

// `name_or_path`: a catalog name (qwen2.5-7b), a config.json, a .json file of that format or a
// folder holding config.json. A path (contains '/', ends in .json, or names a folder) is read
// from disk; otherwise <catalog_dir>/<name>.json when catalog_dir is set and the file exists,
// else the catalog built into the binary. The name: the catalog name, the file's stem, or for a
// config.json its `_name_or_path` (last part), else the Hugging Face cache's repository name,
// else its folder's name. Throws UsageError for an unknown model, listing the known ones.
ModelConfig load_model(const std::string& name_or_path, const std::string& catalog_dir);

// Names of the models built into the binary, sorted.
std::vector<std::string> catalog_model_names();

// Parameter counts of the module tree (all decoder layers, every expert).
struct ModelTotals {
  std::uint64_t params = 0;
  std::uint64_t params_without_embeddings = 0;  // without the input embedding and lm_head
  std::uint64_t active_params = 0;              // per token: top_k of the routed experts
};
ModelTotals model_totals(const ModelConfig& model, int layers = -1);

// "30.5B": billions truncated to one decimal, as model cards print them (7.61B -> 7.6B).
std::string short_count(std::uint64_t params);

}  // namespace collreplay
