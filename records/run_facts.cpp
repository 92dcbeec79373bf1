#include "records/run_facts.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace collreplay::records {

std::string transport_of(const nlohmann::json& r) {
  if (auto t = text_at(r, "transport")) return *t;
  if (auto t = text_at(r, "run/transport_verified")) return *t;
  if (auto t = text_at(r, "run/transport_asked")) return *t;
  return "?";
}

std::string fabric_of(const nlohmann::json& r) {
  if (auto f = text_at(r, "run/fabric"); f && *f != "real") return *f;
  if (auto f = text_at(r, "fabric")) return *f;  // projection records
  return transport_of(r);
}

int nodes_of(const nlohmann::json& r) {
  if (auto n = number_at(r, "run/nodes")) return static_cast<int>(*n);
  if (auto n = number_at(r, "nodes")) return static_cast<int>(*n);
  return 1;
}

std::string run_key(const nlohmann::json& r) {
  const nlohmann::json* run = field_at(r, "run");
  return run ? run->dump() : std::string();
}

ModelIndex index_models(const std::vector<Record>& all) {
  ModelIndex index;
  for (const Record& r : all)
    if (r.kind() == "step")
      if (auto model = text_at(r.data, "model")) index[run_key(r.data)] = *model;
  return index;
}

std::string model_of(const nlohmann::json& r, const ModelIndex& index) {
  if (auto model = text_at(r, "model")) return *model;
  if (auto it = index.find(run_key(r)); it != index.end()) return it->second;
  const nlohmann::json* line = field_at(r, "run/command_line");
  if (line && line->is_array())
    for (std::size_t i = 0; i + 1 < line->size(); ++i)
      if ((*line)[i] == "--model" && (*line)[i + 1].is_string()) {
        std::string model = (*line)[i + 1];
        // A model file: its stem names it (sweeps/models/replay-tiny.json -> replay-tiny).
        if (model.ends_with(".json")) model = std::filesystem::path(model).stem().string();
        return model;
      }
  return "?";
}

bool is_decoder_layer(const std::string& unit) {
  constexpr std::string_view prefix = "layers.";
  if (!unit.starts_with(prefix) || unit.size() == prefix.size()) return false;
  return std::all_of(unit.begin() + prefix.size(), unit.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace collreplay::records
