// The headroom-vs-nodes lines that the headroom figure draws and the report's answer reads:
// per model and fabric, the measured median decoder-layer headroom per node count (replay unit
// records) and the projected one with its band (projection records).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plots/plot_records.hpp"
#include "plots/quantities.hpp"

namespace collreplay::plots {

struct HeadroomPoint {
  double nodes = 0, headroom_ms = 0, lo_ms = 0, hi_ms = 0;
  // Past the tipping point. Measured: more than one rank and a negative headroom (one rank uses
  // no network, whatever its headroom reads). Projected: at or past the projection's own
  // tipping point, which counts exposure on the critical path as well (TP, MoE all-to-all).
  bool tipped = false;
};

struct HeadroomLine {
  std::vector<HeadroomPoint> measured, projected;  // sorted by nodes
  std::string fabric_source;                       // a projection's "fabric_source", if any
  std::string projected_tipping;                   // its words ("2 nodes: ..."), if any
  // The projection's tipping point (bench/project/tipping/tipping_point.hpp): the first node count
  // where it may tip (its headroom band's low end), the nominal one, and the first where it has
  // surely tipped; empty where it does not, or in records older than these fields.
  bool has_tipping_fields = false;
  std::optional<double> tip_from_nodes, tip_nodes, tip_to_nodes;
  // At the projection's largest node count: tokens/s per GPU against its first node count, with
  // the interval (bench/project/interval/); empty in records without them.
  struct Scaling {
    double first_nodes = 0, nodes = 0, ratio = 0, lo = 0, hi = 0;
  };
  std::optional<Scaling> scaling;
};

// "per GPU at 1024 nodes: 0.55 [0.49, 0.61] of 1 node's", "" without the fields.
std::string scaling_words(const HeadroomLine& line);

struct ModelLines {
  std::map<std::string, HeadroomLine> by_fabric;
  std::string workload;  // "micro-batch 2 × 2048, 8 GPUs/node", from the projections
  std::string compute;   // a projection's modelled compute ("model:h100"), if any
};

// model -> its lines. Measured: the median decoder layer of each run, then the median of runs
// at one node count.
std::map<std::string, ModelLines> headroom_lines(const std::vector<Record>& records);

// Where headroom first goes from >= 0 to < 0, interpolated on the log2 node axis.
std::optional<double> crossing_nodes(const std::vector<HeadroomPoint>& points);

// The two node counts a line's points go from not tipped to tipped between: {0, first} when
// tipped from the first point, nullopt when never.
struct TippingInterval {
  double before_nodes = 0, after_nodes = 0;
};
std::optional<TippingInterval> tipping_interval(const std::vector<HeadroomPoint>& points);
// "tips between 2 and 4 nodes", "tips from 2 node(s) on", "stays positive up to 1024 nodes".
std::string tipping_words(const std::vector<HeadroomPoint>& points);

// The projection's verdict in a few words: its own tipping point (a range where its band straddles
// zero), else (older records) tipping_words of its points. "tips between 16 and 64 nodes", "tips
// at 2 nodes", "does not tip up to 1024 nodes".
std::string projected_tipping_words(const HeadroomLine& line);
// The line's verdict: the measured points' where they cross zero, else the projection's.
std::string line_tipping_words(const HeadroomLine& line);

// Measured models first, then by name with digits compared as numbers (7b before 72b).
std::vector<std::string> model_order(const std::map<std::string, ModelLines>& lines);

}  // namespace collreplay::plots
