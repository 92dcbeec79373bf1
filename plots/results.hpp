// The one results reader every plot and the report share: JSON Lines files, or folders of them
// read recursively, tolerant of missing optional fields. Plots read result files only; they
// never link the benchmark.
#pragma once
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace collreplay::plots {

struct Record {
  nlohmann::json data;
  std::string file;
  int line = 0;
};

// Reads every `*.jsonl` file under each path (a file is read whatever its name). A malformed
// line is reported on `warnings` as `file:line: reason` and skipped. A path that does not exist
// is a UsageError.
std::vector<Record> read_results(const std::vector<std::string>& paths, std::ostream& warnings);

// "perf" for records without a `record` field (the *_perf executables), else its value.
std::string record_kind(const nlohmann::json& r);
std::vector<const Record*> of_kind(const std::vector<Record>& records, const std::string& kind);

// Tolerant field access: the value at a '/'-separated path, if present and of the right type.
std::optional<double> number_at(const nlohmann::json& r, const std::string& path);
std::optional<std::string> text_at(const nlohmann::json& r, const std::string& path);

// Run facts with their fallbacks.
std::string fabric_of(const nlohmann::json& r);     // run.fabric, else the transport
std::string transport_of(const nlohmann::json& r);  // transport, else run.transport_verified
int nodes_of(const nlohmann::json& r);              // run.nodes, else nodes, else 1
// The model a replay record belongs to: its own `model`, else the step record of the same run
// (found through `index`), else `--model X` from run.command_line, else "?".
using ModelIndex = std::map<std::string, std::string>;  // run_key -> model
ModelIndex index_models(const std::vector<Record>& all);
std::string model_of(const nlohmann::json& r, const ModelIndex& index);
// One key per run (its metadata), so records of the same run group together.
std::string run_key(const nlohmann::json& r);

// A decoder layer's unit ("layers.12"), not the root (embeddings, head) or other wraps.
bool is_decoder_layer(const std::string& unit);

double median_of(std::vector<double> values);

}  // namespace collreplay::plots
