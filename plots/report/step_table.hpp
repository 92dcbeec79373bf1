// report.md's step summary: every step record, the real-training reference's (source
// "reference") just above the replay of the same step (model, plan with shard group and EP
// degree, world, micro-batch, seq, fabric, nodes; within them the AdamW each asked for).
#pragma once
#include <ostream>
#include <vector>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

void step_table(std::ostream& md, const std::vector<Record>& records);

}  // namespace collreplay::plots
