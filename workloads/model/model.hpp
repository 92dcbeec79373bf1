// A model as the catalog describes it: Hugging Face config values from which every parameter
// tensor is derived (see workloads/models/README.md for the file format).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collreplay {

struct ModelConfig {
  std::string name, source, architecture;
  std::int64_t hidden = 0, intermediate = 0, layers = 0;
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  bool tied_embeddings = false, qkv_bias = false, o_bias = false;
  std::int64_t experts = 0, top_k = 0;  // 0 experts: a dense model
  bool is_moe() const { return experts > 0; }
};

// Parses one catalog file; `origin` names it in errors. Throws UsageError naming the first
// missing or bad field.
ModelConfig parse_model_json(std::string_view text, std::string_view origin);

// `name_or_path`: a path (contains '/' or ends in .json) is read from disk; otherwise
// <catalog_dir>/<name>.json when catalog_dir is set and the file exists, else the catalog built
// into the binary. Throws UsageError for an unknown model, listing the known ones.
ModelConfig load_model(const std::string& name_or_path, const std::string& catalog_dir);

// Names of the models built into the binary, sorted.
std::vector<std::string> catalog_model_names();

// Parameter counts derived from the config (all decoder layers, every expert).
struct ModelTotals {
  std::uint64_t params = 0;
  std::uint64_t params_without_embeddings = 0;  // without embed_tokens and lm_head
  std::uint64_t active_params = 0;              // per token: top_k of the experts
};
ModelTotals model_totals(const ModelConfig& model, int layers = -1);

}  // namespace collreplay
