#include "bench/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/errors.hpp"

namespace collreplay::compare {
namespace {

struct Ranked {
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over groups of equal values of t^3 - t
};

// Ranks of the pooled samples (1-based, ties sharing their mean rank).
Ranked rank_pooled(std::span<const double> a, std::span<const double> b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  Ranked ranked;
  for (std::size_t start = 0; start < pooled.size();) {
    std::size_t end = start;
    while (end < pooled.size() && pooled[end].first == pooled[start].first) ++end;
    const double t = static_cast<double>(end - start);
    const double mean_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    for (std::size_t i = start; i < end; ++i)
      if (pooled[i].second) ranked.rank_sum_a += mean_rank;
    ranked.tie_term += t * t * t - t;
    start = end;
  }
  return ranked;
}

// How many of the C(m+n, m) orderings give each U = 0 .. m*n (no ties): counts(m, n, u) =
// counts(m-1, n, u-n) + counts(m, n-1, u), the largest of a's values being last or not.
std::vector<double> exact_counts(int m, int n) {
  // row[j][u]: counts for (i, j) as i grows; doubles hold C(40, 20) exactly enough.
  std::vector<std::vector<double>> row(n + 1);
  for (int j = 0; j <= n; ++j) row[j] = {1.0};  // i = 0: only U = 0
  for (int i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> next(n + 1);
    next[0] = {1.0};  // j = 0: only U = 0
    for (int j = 1; j <= n; ++j) {
      next[j].assign(static_cast<std::size_t>(i * j + 1), 0.0);
      for (std::size_t u = 0; u < row[j].size(); ++u) next[j][u + j] += row[j][u];
      for (std::size_t u = 0; u < next[j - 1].size(); ++u) next[j][u] += next[j - 1][u];
    }
    row = std::move(next);
  }
  return row[n];
}

double exact_p(double u, int m, int n) {
  const std::vector<double> counts = exact_counts(m, n);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const auto at = static_cast<std::size_t>(std::llround(u));
  const double below = std::accumulate(counts.begin(), counts.begin() + at + 1, 0.0);
  const double above = std::accumulate(counts.begin() + at, counts.end(), 0.0);
  return std::min(1.0, 2 * std::min(below, above) / total);
}

double normal_p(double u, double m, double n, double tie_term) {
  const double total = m + n;
  const double variance = m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (!(variance > 0)) return 1;  // every value equal: nothing tells the samples apart
  const double z = std::max(0.0, std::abs(u - m * n / 2) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

UTestResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw UsageError("the U test needs at least one sample on each side");
  const double m = static_cast<double>(a.size()), n = static_cast<double>(b.size());
  const Ranked ranked = rank_pooled(a, b);
  UTestResult result;
  result.u = ranked.rank_sum_a - m * (m + 1) / 2;
  const bool ties = ranked.tie_term > 0;
  result.exact = !ties && a.size() <= kExactMaxSamples && b.size() <= kExactMaxSamples;
  result.p_value = result.exact
                       ? exact_p(result.u, static_cast<int>(a.size()), static_cast<int>(b.size()))
                       : normal_p(result.u, m, n, ranked.tie_term);
  return result;
}

}  // namespace collreplay::compare
