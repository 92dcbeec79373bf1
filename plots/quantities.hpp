// The quantities the report's tables and its figures both show, each defined once from the
// records, so that a figure and a table never print two numbers for one quantity:
// - a decoder layer's communication: the comm its compute must hide (its unit record's comm_ms,
//   the headroom's comm), not every collective the layer issues;
// - a run's exposed communication: its step record's exposed_comm_ms (overlapped step less the
//   compute-only step);
// - a bus-bandwidth curve: one fabric (run.fabric) over one transport, one op, placement and node
//   count; runs of different fabrics never share a curve.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

// One replayed run's decoder layers ("layers.N" units; where no record has one, every unit but the
// root), from its unit records.
struct RunLayers {
  std::string run;  // run_key
  std::string model, fabric;
  int nodes = 1;
  std::map<int, double> comm_ms, compute_ms, headroom_ms;  // layer -> ms
  std::optional<double> root_headroom_ms;
};
std::vector<RunLayers> run_layers(const std::vector<Record>& records);

// The median of a run's decoder-layer headrooms (the middle two averaged for an even count): the
// point the headroom figure draws and the headroom table's "median".
double median_layer_headroom_ms(const RunLayers& run);

// "eth-10g, 2 nodes": how a run's fabric and node count label its bars and rows.
std::string fabric_nodes_label(const RunLayers& run);

// A run's exposed communication per step (its step record), by run_key.
std::map<std::string, double> exposed_comm_by_run(const std::vector<Record>& records);

// The bus-bandwidth curve a perf record belongs to: "eth-10g over tcp all_gather out_of_place,
// 2n" (the fabric, and the verified transport where it says more).
std::string busbw_curve(const nlohmann::json& perf_record);

}  // namespace collreplay::plots
