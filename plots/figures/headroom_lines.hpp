// The headroom-vs-nodes lines that the headroom figure draws and the report's answer reads:
// per model and fabric, the measured median decoder-layer headroom per node count (replay unit
// records) and the projected one with its band (projection records).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

struct HeadroomPoint {
  double nodes = 0, headroom_ms = 0, lo_ms = 0, hi_ms = 0;
};

struct HeadroomLine {
  std::vector<HeadroomPoint> measured, projected;  // sorted by nodes
  std::string fabric_source;                       // a projection's "fabric_source", if any
};

struct ModelLines {
  std::map<std::string, HeadroomLine> by_fabric;
  std::string workload;  // "micro-batch 2 × 2048, 8 GPUs/node", from the projections
};

// model -> its lines. Measured: the median decoder layer of each run, then the median of runs
// at one node count.
std::map<std::string, ModelLines> headroom_lines(const std::vector<Record>& records);

// Where headroom first goes from >= 0 to < 0, interpolated on the log2 node axis.
std::optional<double> crossing_nodes(const std::vector<HeadroomPoint>& points);

// The tipping point a line shows: where the measurements cross zero, else where the projection
// does (interpolated alike, so a marker sits on its line: a projection's own tipping_point_nodes
// is the first node count past it).
std::optional<double> tipping_nodes(const HeadroomLine& line);

// Measured models first, then by name with digits compared as numbers (7b before 72b).
std::vector<std::string> model_order(const std::map<std::string, ModelLines>& lines);

}  // namespace collreplay::plots
