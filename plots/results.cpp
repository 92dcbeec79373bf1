#include "plots/results.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "common/errors.hpp"

namespace collreplay::plots {
namespace {

namespace fs = std::filesystem;

void read_file(const fs::path& path, std::vector<Record>& out, std::ostream& warnings) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot read " + path.string());
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      nlohmann::json data = nlohmann::json::parse(line);
      if (!data.is_object()) {
        warnings << path.string() << ":" << number << ": not a JSON object, skipped\n";
        continue;
      }
      out.push_back({std::move(data), path.string(), number});
    } catch (const nlohmann::json::parse_error& e) {
      std::string reason = e.what();
      // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> after ": "
      if (auto colon = reason.find(": "); colon != std::string::npos)
        reason = reason.substr(colon + 2);
      warnings << path.string() << ":" << number << ": " << reason << ", skipped\n";
    }
  }
}

const nlohmann::json* at(const nlohmann::json& r, const std::string& path) {
  const nlohmann::json* node = &r;
  std::size_t from = 0;
  while (from <= path.size()) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    const std::string key = path.substr(from, slash - from);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    from = slash + 1;
  }
  return node;
}

}  // namespace

std::vector<Record> read_results(const std::vector<std::string>& paths, std::ostream& warnings) {
  std::vector<Record> records;
  for (const std::string& given : paths) {
    const fs::path path(given);
    if (!fs::exists(path)) throw UsageError(given + ": no such file or folder");
    if (!fs::is_directory(path)) {
      read_file(path, records, warnings);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(path))
      if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());  // the same order on every machine
    for (const fs::path& file : files) read_file(file, records, warnings);
  }
  return records;
}

std::string record_kind(const nlohmann::json& r) {
  const auto kind = text_at(r, "record");
  return kind ? *kind : "perf";
}

std::vector<const Record*> of_kind(const std::vector<Record>& records, const std::string& kind) {
  std::vector<const Record*> found;
  for (const Record& r : records)
    if (record_kind(r.data) == kind) found.push_back(&r);
  return found;
}

std::optional<double> number_at(const nlohmann::json& r, const std::string& path) {
  const nlohmann::json* node = at(r, path);
  if (!node || !node->is_number()) return std::nullopt;
  return node->get<double>();
}

std::optional<std::string> text_at(const nlohmann::json& r, const std::string& path) {
  const nlohmann::json* node = at(r, path);
  if (!node || !node->is_string()) return std::nullopt;
  return node->get<std::string>();
}

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
  const nlohmann::json* run = at(r, "run");
  return run ? run->dump() : std::string();
}

ModelIndex index_models(const std::vector<Record>& all) {
  ModelIndex index;
  for (const Record& r : all)
    if (record_kind(r.data) == "step")
      if (auto model = text_at(r.data, "model")) index[run_key(r.data)] = *model;
  return index;
}

std::string model_of(const nlohmann::json& r, const ModelIndex& index) {
  if (auto model = text_at(r, "model")) return *model;
  if (auto it = index.find(run_key(r)); it != index.end()) return it->second;
  const nlohmann::json* line = at(r, "run/command_line");
  if (line && line->is_array())
    for (std::size_t i = 0; i + 1 < line->size(); ++i)
      if ((*line)[i] == "--model" && (*line)[i + 1].is_string()) {
        std::string model = (*line)[i + 1];
        // A model file: its stem names it (sweeps/models/replay-tiny.json -> replay-tiny).
        if (model.ends_with(".json")) model = fs::path(model).stem().string();
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

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace collreplay::plots
