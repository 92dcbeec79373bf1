#include "workloads/model/model.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/model/embedded_models.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

const json& field(const json& j, const char* key, std::string_view origin) {
  auto it = j.find(key);
  if (it == j.end())
    throw UsageError("model file " + std::string(origin) + ": missing field '" + key + "'");
  return *it;
}

std::int64_t positive_int(const json& j, const char* key, std::string_view origin) {
  const json& v = field(j, key, origin);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
    throw UsageError("model file " + std::string(origin) + ": field '" + key +
                     "' must be a positive integer");
  return v.get<std::int64_t>();
}

bool boolean(const json& j, const char* key, std::string_view origin) {
  const json& v = field(j, key, origin);
  if (!v.is_boolean())
    throw UsageError("model file " + std::string(origin) + ": field '" + key +
                     "' must be true or false");
  return v.get<bool>();
}

std::string text(const json& j, const char* key, std::string_view origin) {
  const json& v = field(j, key, origin);
  if (!v.is_string() || v.get<std::string>().empty())
    throw UsageError("model file " + std::string(origin) + ": field '" + key +
                     "' must be a non-empty string");
  return v.get<std::string>();
}

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read model file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ModelConfig parse_model_json(std::string_view text_in, std::string_view origin) {
  json j;
  try {
    j = json::parse(text_in);
  } catch (const json::exception& e) {
    throw UsageError("model file " + std::string(origin) + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw UsageError("model file " + std::string(origin) + ": not a JSON object");
  ModelConfig m;
  m.name = text(j, "name", origin);
  m.source = text(j, "source", origin);
  m.architecture = j.contains("architecture") && j["architecture"].is_string()
                       ? j["architecture"].get<std::string>()
                       : "";
  m.hidden = positive_int(j, "hidden_size", origin);
  m.intermediate = positive_int(j, "intermediate_size", origin);
  m.layers = positive_int(j, "num_hidden_layers", origin);
  m.heads = positive_int(j, "num_attention_heads", origin);
  m.kv_heads = positive_int(j, "num_key_value_heads", origin);
  m.vocab = positive_int(j, "vocab_size", origin);
  m.tied_embeddings = boolean(j, "tie_word_embeddings", origin);
  m.qkv_bias = boolean(j, "qkv_bias", origin);
  m.o_bias = boolean(j, "o_bias", origin);
  if (j.contains("head_dim")) {
    m.head_dim = positive_int(j, "head_dim", origin);
  } else {
    if (m.hidden % m.heads != 0)
      throw UsageError("model file " + std::string(origin) +
                       ": hidden_size does not divide by num_attention_heads; give head_dim");
    m.head_dim = m.hidden / m.heads;
  }
  if (m.heads % m.kv_heads != 0)
    throw UsageError("model file " + std::string(origin) +
                     ": num_attention_heads must be a multiple of num_key_value_heads");
  const bool has_experts = j.contains("num_local_experts");
  const bool has_top_k = j.contains("num_experts_per_tok");
  if (has_experts != has_top_k)
    throw UsageError("model file " + std::string(origin) + ": missing field '" +
                     (has_experts ? "num_experts_per_tok" : "num_local_experts") + "'");
  if (has_experts) {
    m.experts = positive_int(j, "num_local_experts", origin);
    m.top_k = positive_int(j, "num_experts_per_tok", origin);
    if (m.top_k > m.experts)
      throw UsageError("model file " + std::string(origin) +
                       ": num_experts_per_tok exceeds num_local_experts");
  }
  // Every tensor size must fit: checked once here so later arithmetic can rely on it.
  const std::string what = "model file " + std::string(origin) + ": tensor size";
  checked_mul(static_cast<std::uint64_t>(m.vocab), static_cast<std::uint64_t>(m.hidden), what);
  checked_mul(checked_mul(static_cast<std::uint64_t>(m.heads),
                          static_cast<std::uint64_t>(m.head_dim), what),
              static_cast<std::uint64_t>(m.hidden), what);
  checked_mul(checked_mul(static_cast<std::uint64_t>(std::max<std::int64_t>(m.experts, 1)) * 3,
                          static_cast<std::uint64_t>(m.intermediate), what),
              static_cast<std::uint64_t>(m.hidden), what);
  model_totals(m);  // throws when the whole model overflows
  return m;
}

std::vector<std::string> catalog_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, text_] : embedded_model_files()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig load_model(const std::string& name_or_path, const std::string& catalog_dir) {
  if (name_or_path.empty()) throw UsageError("no model given (--model)");
  if (looks_like_path(name_or_path)) return parse_model_json(read_file(name_or_path), name_or_path);
  if (!catalog_dir.empty()) {
    const std::string path = catalog_dir + "/" + name_or_path + ".json";
    if (std::ifstream(path)) return parse_model_json(read_file(path), path);
  }
  for (const auto& [name, file_text] : embedded_model_files())
    if (name == name_or_path) return parse_model_json(file_text, name_or_path + ".json (built in)");
  std::string known;
  for (const auto& n : catalog_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown model '" + name_or_path + "' (known: " + known +
                   "; or give a path to a .json file)");
}

ModelTotals model_totals(const ModelConfig& m, int layers) {
  const std::string what = "parameter count of " + m.name;
  auto mul = [&](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, what); };
  auto add = [&](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, what); };
  const std::uint64_t h = m.hidden, q = mul(m.heads, m.head_dim), kv = mul(m.kv_heads, m.head_dim);
  std::uint64_t attn = add(add(mul(h, q), mul(2 * h, kv)), mul(q, h));
  if (m.qkv_bias) attn = add(attn, q + 2 * kv);
  if (m.o_bias) attn = add(attn, h);
  const std::uint64_t one_mlp = mul(3 * h, m.intermediate);
  const std::uint64_t experts = m.is_moe() ? mul(one_mlp, m.experts) : one_mlp;
  const std::uint64_t router = m.is_moe() ? mul(h, m.experts) : 0;
  const std::uint64_t active_experts = m.is_moe() ? mul(one_mlp, m.top_k) : one_mlp;
  const std::uint64_t norms = 2 * h;
  const std::uint64_t n_layers = layers < 0 ? m.layers : std::min<std::int64_t>(layers, m.layers);
  const std::uint64_t layer = add(add(add(attn, router), experts), norms);
  const std::uint64_t active_layer = add(add(add(attn, router), active_experts), norms);
  const std::uint64_t embed = mul(m.vocab, h), lm_head = m.tied_embeddings ? 0 : embed;
  ModelTotals t;
  t.params_without_embeddings = add(mul(layer, n_layers), h);
  t.params = add(add(t.params_without_embeddings, embed), lm_head);
  t.active_params = add(add(add(mul(active_layer, n_layers), h), embed), lm_head);
  return t;
}

}  // namespace collreplay
