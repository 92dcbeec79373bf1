// The answer a results folder gives to the mission's question, in words, for the top of
// report.md: per model and fabric, where the median decoder layer's headroom goes negative
// (measured where the runs cross zero, else projected) and what it is at the far end.
#pragma once
#include <string>
#include <vector>

#include "plots/plot_records.hpp"

namespace collreplay::plots {

// Markdown: a heading, one line per model and a table of model x fabric; "" when the records
// hold neither replay units nor projections.
std::string answer_markdown(const std::vector<Record>& records);

}  // namespace collreplay::plots
