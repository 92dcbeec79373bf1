// Reads a Hugging Face config.json as transformers does: the fields of PretrainedConfig's
// subclass for its model_type, with the same defaults, and the rules its modeling_<type>.py
// follows where the config says nothing (which projections carry a bias, which layers hold
// experts). Each family cites the transformers files it follows (v4.57 / v5.0 agree on shapes).
#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/model/model.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<ModelFamily, std::string_view>, 10> kFamilies = {{
    {ModelFamily::llama, "llama"},
    {ModelFamily::mistral, "mistral"},
    {ModelFamily::qwen2, "qwen2"},
    {ModelFamily::qwen3, "qwen3"},
    {ModelFamily::mixtral, "mixtral"},
    {ModelFamily::qwen2_moe, "qwen2_moe"},
    {ModelFamily::qwen3_moe, "qwen3_moe"},
    {ModelFamily::deepseek_v3, "deepseek_v3"},
    {ModelFamily::gpt_neox, "gpt_neox"},
    {ModelFamily::nemotron, "nemotron"},
}};

// The config's fields, read with the file and family named in every error.
class Fields {
 public:
  Fields(const json& j, std::string_view origin) : j_(j), origin_(origin) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError("model file " + origin_ + ": " + what);
  }
  // Present and not null (transformers writes null for "not set", e.g. Mistral's head_dim).
  bool has(const char* key) const {
    auto it = j_.find(key);
    return it != j_.end() && !it->is_null();
  }
  const json& get(const char* key) const {
    if (!has(key))
      fail("missing field '" + std::string(key) + "'" +
           (type_.empty() ? "" : " (model_type '" + type_ + "')") +
           "; supported model_type values: " + supported_families());
    return j_.at(key);
  }
  std::int64_t positive(const char* key) const {
    const json& v = get(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
      fail("field '" + std::string(key) + "' must be a positive integer");
    return v.get<std::int64_t>();
  }
  std::int64_t positive_or(const char* key, std::int64_t fallback) const {
    return has(key) ? positive(key) : fallback;
  }
  std::int64_t count_or(const char* key, std::int64_t fallback) const {  // zero allowed
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      fail("field '" + std::string(key) + "' must be a whole number");
    return v.get<std::int64_t>();
  }
  bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_boolean()) fail("field '" + std::string(key) + "' must be true or false");
    return j_.at(key).get<bool>();
  }
  double number_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_number()) fail("field '" + std::string(key) + "' must be a number");
    return j_.at(key).get<double>();
  }
  std::string text_or(const char* key) const {
    return has(key) && j_.at(key).is_string() ? j_.at(key).get<std::string>() : "";
  }
  void set_type(std::string type) { type_ = std::move(type); }
  const json& raw() const { return j_; }

 private:
  const json& j_;
  std::string origin_, type_;
};

ModelFamily family_of(const Fields& f) {
  const json& v = f.get("model_type");
  const std::string type = v.is_string() ? v.get<std::string>() : v.dump();
  for (const auto& [family, name] : kFamilies)
    if (name == type) return family;
  f.fail("model_type '" + type + "' is not supported (supported: " + supported_families() + ")");
}

// What every decoder family reads: sizes, heads, vocabulary, tied head.
void read_common(const Fields& f, ModelConfig& m) {
  m.hidden = f.positive("hidden_size");
  m.intermediate = f.positive("intermediate_size");
  m.layers = f.positive("num_hidden_layers");
  m.heads = f.positive("num_attention_heads");
  // configuration_llama.py and the rest: num_key_value_heads None means multi-head attention.
  m.kv_heads = f.positive_or("num_key_value_heads", m.heads);
  m.vocab = f.positive("vocab_size");
  // Every family here defaults tie_word_embeddings to False in its configuration class.
  m.tied_embeddings = f.flag_or("tie_word_embeddings", false);
  if (f.raw().contains("architectures") && f.raw()["architectures"].is_array() &&
      !f.raw()["architectures"].empty() && f.raw()["architectures"][0].is_string())
    m.architecture = f.raw()["architectures"][0].get<std::string>();
}

// head_dim: LlamaAttention and its copies use getattr(config, "head_dim", hidden // heads);
// Qwen3Config and Qwen3MoeConfig default it to 128.
void read_head_dim(const Fields& f, ModelConfig& m, std::int64_t qwen3_default) {
  if (f.has("head_dim")) {
    m.head_dim = f.positive("head_dim");
  } else if (qwen3_default > 0) {
    m.head_dim = qwen3_default;
  } else {
    if (m.hidden % m.heads != 0)
      f.fail("hidden_size does not divide by num_attention_heads; give head_dim");
    m.head_dim = m.hidden / m.heads;
  }
}

void read_attention_rules(const Fields& f, ModelConfig& m) {
  switch (m.family) {
    case ModelFamily::llama:  // modeling_llama.py: bias=config.attention_bias, mlp_bias
      m.qkv_bias = m.o_bias = f.flag_or("attention_bias", false);
      m.mlp_bias = f.flag_or("mlp_bias", false);
      break;
    case ModelFamily::qwen2:  // modeling_qwen2.py: q/k/v_proj bias=True, o_proj bias=False
      m.qkv_bias = true;
      break;
    case ModelFamily::qwen2_moe:  // modeling_qwen2_moe.py: bias=config.qkv_bias (default True)
      m.qkv_bias = f.flag_or("qkv_bias", true);
      break;
    case ModelFamily::qwen3:  // modeling_qwen3.py: bias=config.attention_bias; q_norm, k_norm
    case ModelFamily::qwen3_moe:
      m.qkv_bias = m.o_bias = f.flag_or("attention_bias", false);
      m.qk_norm = true;
      break;
    case ModelFamily::deepseek_v3:  // q_a_proj, kv_a_proj_with_mqa, o_proj: attention_bias
      m.qkv_bias = m.o_bias = f.flag_or("attention_bias", false);
      break;
    case ModelFamily::nemotron:  // modeling_nemotron.py: q/k/v/o attention_bias, up/down mlp_bias
      m.qkv_bias = m.o_bias = f.flag_or("attention_bias", false);
      m.mlp_bias = f.flag_or("mlp_bias", false);
      break;
    case ModelFamily::gpt_neox:  // modeling_gpt_neox.py: query_key_value, dense: attention_bias
      m.qkv_bias = m.o_bias = f.flag_or("attention_bias", true);
      m.mlp_bias = true;  // dense_h_to_4h, dense_4h_to_h: nn.Linear with its default bias
      break;
    default: break;  // mistral, mixtral: no biases
  }
}

// Mixtral's experts are as wide as its dense MLP would be (intermediate_size).
void read_mixtral(const Fields& f, ModelConfig& m) {
  m.experts = f.positive("num_local_experts");
  m.top_k = f.positive("num_experts_per_tok");
  m.expert_intermediate = m.intermediate;
}

// modeling_qwen2_moe.py / modeling_qwen3_moe.py: layer L is sparse when L is not in
// mlp_only_layers and (L + 1) % decoder_sparse_step == 0; otherwise a dense MLP of
// intermediate_size. Qwen2-MoE adds a shared expert and its sigmoid gate.
void read_qwen_moe(const Fields& f, ModelConfig& m) {
  m.experts = f.positive("num_experts");
  m.top_k = f.positive("num_experts_per_tok");
  m.expert_intermediate = f.positive("moe_intermediate_size");
  m.sparse_step = f.positive_or("decoder_sparse_step", 1);
  if (f.has("mlp_only_layers")) {
    const json& v = f.get("mlp_only_layers");
    if (!v.is_array()) f.fail("field 'mlp_only_layers' must be a list of layer indices");
    for (const json& l : v) {
      if (!l.is_number_integer()) f.fail("field 'mlp_only_layers' must hold layer indices");
      m.mlp_only_layers.push_back(l.get<std::int64_t>());
    }
  }
  if (m.family == ModelFamily::qwen2_moe) {
    m.shared_intermediate = f.positive("shared_expert_intermediate_size");
    m.shared_expert_gate = true;
  }
}

// modeling_deepseek_v3.py: multi-head latent attention; layers below first_k_dense_replace are
// dense (intermediate_size), the rest n_routed_experts experts plus n_shared_experts as one MLP
// of moe_intermediate_size * n_shared_experts. The router's e_score_correction_bias is a
// buffer, not a parameter (FSDP leaves it alone). num_nextn_predict_layers (the multi-token
// prediction head) is not built by transformers, nor here.
void read_deepseek_v3(const Fields& f, ModelConfig& m) {
  m.experts = f.positive("n_routed_experts");
  m.top_k = f.positive("num_experts_per_tok");
  m.expert_intermediate = f.positive("moe_intermediate_size");
  m.shared_intermediate = m.expert_intermediate * f.count_or("n_shared_experts", 0);
  m.first_dense_layers = f.count_or("first_k_dense_replace", 0);
  m.q_lora_rank = f.count_or("q_lora_rank", 0);  // null: a plain q_proj
  m.kv_lora_rank = f.positive("kv_lora_rank");
  m.qk_nope_head_dim = f.positive("qk_nope_head_dim");
  m.qk_rope_head_dim = f.positive("qk_rope_head_dim");
  m.v_head_dim = f.positive("v_head_dim");
  m.head_dim = m.qk_rope_head_dim;  // what rotary runs over (DeepseekV3RotaryEmbedding)
}

// configuration_gpt_neox.py: rotary_pct (default 0.25) of each head is rotated;
// use_parallel_residual (default True): x + attn(ln1(x)) + mlp(ln2(x)).
void read_gpt_neox(const Fields& f, ModelConfig& m) {
  if (m.kv_heads != m.heads) f.fail("gpt_neox has no grouped-query attention");
  m.rotary_pct = f.number_or("rotary_pct", 0.25);
  if (!(m.rotary_pct > 0 && m.rotary_pct <= 1)) f.fail("field 'rotary_pct' must be in (0, 1]");
  m.parallel_residual = f.flag_or("use_parallel_residual", true);
}

// configuration_nemotron.py: partial_rotary_factor (default 0.5) of each head is rotated;
// hidden_act (default "relu2") is ACT2FN's ReLUSquaredActivation, the only one modelled here.
void read_nemotron(const Fields& f, ModelConfig& m) {
  m.rotary_pct = f.number_or("partial_rotary_factor", 0.5);
  if (!(m.rotary_pct > 0 && m.rotary_pct <= 1))
    f.fail("field 'partial_rotary_factor' must be in (0, 1]");
  const std::string act = f.has("hidden_act") ? f.text_or("hidden_act") : "relu2";
  if (act != "relu2")
    f.fail("hidden_act '" + act + "' is not modelled for nemotron (relu2: squared ReLU)");
}

void check_sizes(const Fields& f, const ModelConfig& m) {
  if (m.heads % m.kv_heads != 0)
    f.fail("num_attention_heads must be a multiple of num_key_value_heads");
  if (m.is_moe() && m.top_k > m.experts) f.fail("num_experts_per_tok exceeds the experts");
  // Every tensor size must fit: checked once here so later arithmetic can rely on it.
  const std::string what = "tensor size";
  auto fits = [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    try {
      checked_mul(checked_mul(a, b, what), c, what);
    } catch (const UsageError&) {
      f.fail("a tensor's size overflows");
    }
  };
  const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 1)); };
  fits(u(m.vocab), u(m.hidden), 1);
  fits(u(m.heads), u(std::max(m.qk_dim(), m.v_dim())) * 3, u(m.hidden));
  fits(u(m.experts) * 3, u(std::max(m.intermediate, m.expert_intermediate)), u(m.hidden));
  fits(u(m.shared_intermediate) * 3, u(m.hidden), 1);
}

}  // namespace

std::string_view family_name(ModelFamily family) {
  for (const auto& [f, name] : kFamilies)
    if (f == family) return name;
  return "?";
}

std::string supported_families() {
  std::string s;
  for (const auto& [f, name] : kFamilies) s += (s.empty() ? "" : ", ") + std::string(name);
  return s;
}

bool ModelConfig::moe_layer(std::int64_t layer) const {
  if (!is_moe() || layer < first_dense_layers || (layer + 1) % sparse_step != 0) return false;
  return std::find(mlp_only_layers.begin(), mlp_only_layers.end(), layer) ==
         mlp_only_layers.end();
}

ModelConfig parse_model_json(std::string_view text, std::string_view origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError("model file " + std::string(origin) + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw UsageError("model file " + std::string(origin) + ": not a JSON object");
  Fields f(j, origin);
  ModelConfig m;
  m.family = family_of(f);
  m.model_type = std::string(family_name(m.family));
  f.set_type(m.model_type);
  m.name = f.text_or("_name_or_path");
  m.source = std::string(origin);
  read_common(f, m);
  const bool qwen3 = m.family == ModelFamily::qwen3 || m.family == ModelFamily::qwen3_moe;
  read_head_dim(f, m, qwen3 ? 128 : 0);
  read_attention_rules(f, m);
  switch (m.family) {
    case ModelFamily::mixtral: read_mixtral(f, m); break;
    case ModelFamily::qwen2_moe:
    case ModelFamily::qwen3_moe: read_qwen_moe(f, m); break;
    case ModelFamily::deepseek_v3: read_deepseek_v3(f, m); break;
    case ModelFamily::gpt_neox: read_gpt_neox(f, m); break;
    case ModelFamily::nemotron: read_nemotron(f, m); break;
    default: break;
  }
  check_sizes(f, m);
  model_totals(m);  // throws when the whole model overflows
  return m;
}

}  // namespace collreplay
