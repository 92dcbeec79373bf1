// The tables `project --check` prints: every point's real and projected tokens/s per GPU, their
// ratios to the series' first point, the error in points against the band and the projection's
// interval on its ratio (whether the real ratio lies inside, for held-out points); the absolute
// tokens/s per GPU at each series' first point with the compute model used (no band: the
// published software stacks differ); beside every point of a series whose band names a term, the
// term's number (a diagnosis, or a reported series' figure); each series' errors; the intervals'
// calibration and their coverage of the held-out points; a summary and every failure.
#pragma once
#include <iosfwd>

#include "bench/project/check/check_runner.hpp"

namespace collreplay::project {

void print_check(const CheckReport& report, std::ostream& out);

}  // namespace collreplay::project
