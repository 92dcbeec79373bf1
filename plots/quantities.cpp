#include "plots/quantities.hpp"

namespace collreplay::plots {

std::vector<RunLayers> run_layers(const std::vector<Record>& records) {
  const ModelIndex models = index_models(records);
  std::map<std::string, RunLayers> by_run;
  std::vector<std::string> order;
  // Schedules without numbered layers (hand-made ones): every unit but the root, in order.
  bool any_decoder = false;
  for (const Record* r : of_kind(records, "unit"))
    if (auto unit = text_at(r->data, "unit"); unit && is_decoder_layer(*unit)) any_decoder = true;
  for (const Record* r : of_kind(records, "unit")) {
    const auto unit = text_at(r->data, "unit");
    const auto headroom = number_at(r->data, "headroom_ms");
    if (!unit || !headroom) continue;
    const std::string key = run_key(r->data);
    auto [it, fresh] = by_run.try_emplace(key);
    RunLayers& run = it->second;
    if (fresh) {
      order.push_back(key);
      run.run = key;
      run.model = model_of(r->data, models);
      run.fabric = fabric_of(r->data);
      run.nodes = nodes_of(r->data);
    }
    if (*unit == "root") run.root_headroom_ms = *headroom;
    if (any_decoder ? !is_decoder_layer(*unit) : *unit == "root") continue;
    const int layer = any_decoder ? std::stoi(unit->substr(unit->find('.') + 1))
                                  : static_cast<int>(run.headroom_ms.size());
    run.headroom_ms[layer] = *headroom;
    run.comm_ms[layer] = number_at(r->data, "comm_ms").value_or(0);
    run.compute_ms[layer] = number_at(r->data, "compute_ms").value_or(0);
  }
  std::vector<RunLayers> out;
  for (const std::string& key : order) out.push_back(by_run[key]);
  return out;
}

double median_layer_headroom_ms(const RunLayers& run) {
  std::vector<double> values;
  for (const auto& [layer, ms] : run.headroom_ms) values.push_back(ms);
  return median_of(values);
}

std::string fabric_nodes_label(const RunLayers& run) {
  return run.fabric + ", " + std::to_string(run.nodes) + (run.nodes == 1 ? " node" : " nodes");
}

std::map<std::string, double> exposed_comm_by_run(const std::vector<Record>& records) {
  std::map<std::string, double> exposed;
  for (const Record* r : of_kind(records, "step"))
    if (auto ms = number_at(r->data, "exposed_comm_ms")) exposed[run_key(r->data)] = *ms;
  return exposed;
}

std::string busbw_curve(const nlohmann::json& r) {
  const std::string fabric = fabric_of(r), transport = transport_of(r);
  return fabric + (fabric == transport ? "" : " over " + transport) + " " +
         text_at(r, "op").value_or("?") + " " + text_at(r, "placement").value_or("") + ", " +
         std::to_string(nodes_of(r)) + "n";
}

}  // namespace collreplay::plots
