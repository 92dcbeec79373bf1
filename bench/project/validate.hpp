// `project --validate`: fit on every node count but the largest, predict the largest, and report
// the error per collective (each measured size), per unit (replay: the comm hiding behind each
// unit's compute) and per step (replay: the comm-only step).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/project/model/fit.hpp"
#include "bench/project/model/measured_points.hpp"

namespace collreplay::project {

struct ValidationRow {
  std::string level;   // "collective" | "unit" | "step"
  std::string name;    // collective kind, unit name, or the replay's file name
  std::string source;  // perf | replay
  double bytes = 0;    // collective rows
  GroupSpan span;      // collective rows
  std::string algo;    // collective rows
  double measured_ms = 0, predicted_ms = 0;
  double error() const { return measured_ms > 0 ? (predicted_ms - measured_ms) / measured_ms : 0; }
};

struct ValidationReport {
  FitReport fit;
  int held_out_nodes = 0;
  std::vector<ValidationRow> rows;
};

// UsageError (one line) when the results hold fewer than 3 node counts.
ValidationReport validate_results(const ResultsSet& results,
                                  const std::optional<FabricModel>& intra_given, int links);

}  // namespace collreplay::project
