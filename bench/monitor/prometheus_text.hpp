// The Prometheus text exposition format (version 0.0.4) of the monitor's latest counters and the
// benchmark's gauges: one # HELP and # TYPE per metric family, then one line per series.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/monitor/counters.hpp"
#include "bench/monitor/metrics_board.hpp"

namespace collreplay {

struct ExpositionInput {
  std::string host;
  int rank = 0;
  CounterSnapshot fabric;                    // cumulative counters
  std::vector<nlohmann::json> fabric_rates;  // newest `counters` records (rates), may be empty
  std::vector<nlohmann::json> gpus;          // newest GPU `counters` records
  std::vector<Gauge> gauges;                 // the benchmark's own
};

std::string prometheus_text(const ExpositionInput& input);

// A label value escaped as the format requires (backslash, quote, newline).
std::string escape_label_value(const std::string& value);

}  // namespace collreplay
