#include "workloads/model/model.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/model/embedded_models.hpp"
#include "workloads/model/module_tree.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

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

std::string last_part(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  const std::size_t slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// The Hugging Face cache keeps a download at models--ORG--NAME/snapshots/<revision>/.
std::string hub_cache_name(const fs::path& folder) {
  const fs::path snapshots = folder.parent_path();
  const std::string repo = snapshots.parent_path().filename().string();
  if (snapshots.filename() != "snapshots" || repo.rfind("models--", 0) != 0) return "";
  const std::size_t sep = repo.rfind("--");
  return sep == std::string::npos ? "" : repo.substr(sep + 2);
}

// A config.json is named by what it says it came from, else by where it lies.
std::string name_of_config(const ModelConfig& m, const std::string& path) {
  if (!last_part(m.name).empty()) return last_part(m.name);
  const fs::path folder = fs::absolute(fs::path(path)).lexically_normal().parent_path();
  const std::string cached = hub_cache_name(folder);
  return cached.empty() ? folder.filename().string() : cached;
}

ModelConfig load_path(const std::string& path_in) {
  std::string path = path_in;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    path = (fs::path(path) / "config.json").string();
    if (!fs::exists(path, ec))
      throw UsageError("model folder '" + path_in + "' holds no config.json");
  }
  ModelConfig m = parse_model_json(read_file(path), path);
  m.name = fs::path(path).filename() == "config.json" ? name_of_config(m, path)
                                                      : fs::path(path).stem().string();
  return m;
}

}  // namespace

std::vector<std::string> catalog_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, text_] : embedded_model_files()) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

ModelConfig load_model(const std::string& name_or_path, const std::string& catalog_dir) {
  if (name_or_path.empty()) throw UsageError("no model given (--model)");
  if (looks_like_path(name_or_path)) return load_path(name_or_path);
  if (!catalog_dir.empty()) {
    const std::string path = catalog_dir + "/" + name_or_path + ".json";
    if (std::ifstream(path)) return load_path(path);
  }
  for (const auto& [name, file_text] : embedded_model_files()) {
    if (name != name_or_path) continue;
    ModelConfig m = parse_model_json(file_text, name_or_path + ".json (built in)");
    m.name = name_or_path;
    return m;
  }
  std::error_code ec;
  if (fs::is_directory(name_or_path, ec)) return load_path(name_or_path);
  std::string known;
  for (const auto& n : catalog_model_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown model '" + name_or_path + "' (known: " + known +
                   "; or give a Hugging Face config.json, or a folder holding one)");
}

ModelTotals model_totals(const ModelConfig& m, int layers) {
  TreeOptions options;
  options.layers = layers;
  const ModuleTree t = build_module_tree(m, options);
  const std::string what = "parameter count of " + m.name;
  ModelTotals total;
  std::uint64_t embeddings = 0, routed = 0, routed_active = 0;
  for (const ModuleNode& n : t.nodes) {
    for (const ParamTensor& p : n.params) total.params = checked_add(total.params, p.numel(), what);
    if (n.compute == ComputeKind::embedding || n.head) embeddings += subtree_numel(t, &n - &t.nodes[0]);
    if (n.experts_container) {
      const std::uint64_t e = subtree_numel(t, &n - &t.nodes[0]);
      routed += e;
      routed_active += e / static_cast<std::uint64_t>(m.experts) * static_cast<std::uint64_t>(m.top_k);
    }
  }
  total.params_without_embeddings = total.params - embeddings;
  total.active_params = total.params - routed + routed_active;
  return total;
}

std::string short_count(std::uint64_t params) {
  const std::uint64_t tenths = params / 100000000;  // truncated, as model cards print them
  char out[48];
  std::snprintf(out, sizeof out, "%llu.%lluB", static_cast<unsigned long long>(tenths / 10),
                static_cast<unsigned long long>(tenths % 10));
  return out;
}

}  // namespace collreplay
