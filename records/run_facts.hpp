// What a record says about the run it came from, with the fallbacks that older records and
// other kinds of record need: the transport, the fabric, the node count, the model.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/record.hpp"

namespace collreplay::records {

std::string transport_of(const nlohmann::json& r);  // transport, else run.transport_verified,
                                                    // else run.transport_asked, else "?"
std::string fabric_of(const nlohmann::json& r);     // run.fabric (not "real"), else the record's
                                                    // fabric (projections), else the transport
int nodes_of(const nlohmann::json& r);              // run.nodes, else nodes, else 1

// One key per run (its metadata), so that records of the same run group together.
std::string run_key(const nlohmann::json& r);

// The model a record belongs to: its own `model`, else the step record of the same run (found
// through `index`), else `--model X` from run.command_line (a model file: its stem), else "?".
using ModelIndex = std::map<std::string, std::string>;  // run_key -> model
ModelIndex index_models(const std::vector<Record>& all);
std::string model_of(const nlohmann::json& r, const ModelIndex& index);

// A decoder layer's unit ("layers.12"), not the root (embeddings, head) or other wraps.
bool is_decoder_layer(const std::string& unit);

}  // namespace collreplay::records
