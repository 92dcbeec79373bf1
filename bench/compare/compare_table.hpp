// The markdown table compare prints: one row per paired time, then a line per verdict that
// matters (how many are slower, how many could not be tested and why).
#pragma once
#include <iosfwd>
#include <vector>

#include "bench/compare/paired_times.hpp"

namespace collreplay::compare {

void print_compare_table(const std::vector<PairedTime>& times, const Gate& gate, std::ostream& out);

}  // namespace collreplay::compare
