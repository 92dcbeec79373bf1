#include "bench/app/stats.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace collreplay {

double median(std::span<const double> values) {
  if (values.empty()) return 0;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

double spread(std::span<const double> values) {
  if (values.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double mid = median(values);
  return mid > 0 ? (*hi - *lo) / mid : 0;
}

std::vector<CrossRankStat> summarize_across_ranks(std::span<const double> values, int ranks,
                                                  std::size_t columns) {
  if (ranks <= 0 || values.size() != static_cast<std::size_t>(ranks) * columns)
    throw RuntimeError("summarize_across_ranks: " + std::to_string(values.size()) +
                       " values are not " + std::to_string(ranks) + " rows of " +
                       std::to_string(columns));
  std::vector<CrossRankStat> stats(columns);
  std::vector<double> column(ranks);
  for (std::size_t c = 0; c < columns; ++c) {
    CrossRankStat& s = stats[c];
    for (int r = 0; r < ranks; ++r) {
      column[r] = values[r * columns + c];
      if (r == 0 || column[r] > s.max) {
        s.max = column[r];
        s.slowest_rank = r;
      }
    }
    s.min = *std::min_element(column.begin(), column.end());
    s.median = median(column);
  }
  return stats;
}

}  // namespace collreplay
