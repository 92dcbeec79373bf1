// Order statistics used for step stability and the cross-rank (straggler) view. Pure.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace collreplay {

double median(std::span<const double> values);  // 0 for no values
// (max - min) / median: how far apart repeated step times are; 0 for fewer than 2 values.
double spread(std::span<const double> values);

struct CrossRankStat {
  double max = 0, median = 0, min = 0;
  int slowest_rank = 0;  // the rank holding max (the lowest such rank)
};

// `values` holds one row of `columns` numbers per rank (row-major, ranks rows); one stat per
// column.
std::vector<CrossRankStat> summarize_across_ranks(std::span<const double> values, int ranks,
                                                  std::size_t columns);

}  // namespace collreplay
