// What `advise` prints and writes: a table of the layouts, best first, and one JSON record per
// layout and recompute choice (record "advice").
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/advise/advice.hpp"

namespace collreplay::advise {

struct AdviceLabels {
  std::string model, fabric, compute, optimizer_states;
  int nodes = 1, gpus_per_node = 1;
  std::int64_t micro_batch = 1, seq = 1;
  std::uint64_t gpu_memory_bytes = 0;
  std::string memory;  // what memory per GPU is checked against, in words
  // The projection's scaling error at this node count, as a fraction of a layout's tokens/s
  // (interval/scaling_interval.hpp), and the words that say where it comes from.
  double scaling_halfwidth = 0;
  std::string interval;
};

void print_advice(const std::vector<Advice>& advice, const AdviceLabels& labels, std::ostream& out);

nlohmann::json advice_json(const Advice& advice, const AdviceLabels& labels);

// With several fabrics: each layout's tokens/s on each (the detail behind the answer, which
// records/fabric_answer.hpp prints: best layout against best layout).
void print_layouts_side_by_side(const std::vector<std::vector<Advice>>& rankings,
                                const std::vector<std::string>& fabric_labels, std::ostream& out);

}  // namespace collreplay::advise
