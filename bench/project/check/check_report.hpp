// The tables `project --check` prints: every point's real and projected tokens/s per GPU, their
// ratios to the series' first point and the error in points against the band; the absolute
// tokens/s per GPU at each series' first point with the compute model used (no band: the
// published software stacks differ); the term and its numbers for unmatched series; a summary.
#pragma once
#include <iosfwd>
#include <vector>

#include "bench/project/check/check_runner.hpp"

namespace collreplay::project {

void print_check(const std::vector<CheckedSeries>& series, std::ostream& out);

}  // namespace collreplay::project
