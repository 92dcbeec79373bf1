#include "bench/project/model/least_squares.hpp"

#include <cmath>
#include <limits>

namespace collreplay::project {
namespace {

// Solves A c = b in place (Gaussian elimination, partial pivoting); false when singular.
bool solve_linear(std::vector<std::vector<double>> a, std::vector<double> b,
                  std::vector<double>& c) {
  const std::size_t n = b.size();
  double scale = 0;
  for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(a[i][i]));
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    if (std::fabs(a[pivot][col]) <= 1e-10 * scale) return false;
    std::swap(a[pivot], a[col]);
    std::swap(b[pivot], b[col]);
    for (std::size_t r = col + 1; r < n; ++r) {
      const double f = a[r][col] / a[col][col];
      for (std::size_t k = col; k < n; ++k) a[r][k] -= f * a[col][k];
      b[r] -= f * b[col];
    }
  }
  c.assign(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i][k] * c[k];
    c[i] = s / a[i][i];
  }
  return true;
}

}  // namespace

LeastSquares fit_nonnegative(const std::vector<double>& t, const std::vector<double>& known,
                             const std::vector<std::vector<double>>& x,
                             const std::vector<bool>& free_columns) {
  const std::size_t m = free_columns.size();
  LeastSquares best;
  best.sse = std::numeric_limits<double>::infinity();
  best.coef.assign(m, 0);
  const std::size_t last = m - 1;
  // Subsets in order of preference: more columns first (mask counted down), last column always in.
  for (unsigned mask = (1u << m) - 1; mask > 0; --mask) {
    if (!(mask & (1u << last))) continue;
    std::vector<std::size_t> cols;
    bool allowed = true;
    for (std::size_t j = 0; j < m; ++j)
      if (mask & (1u << j)) {
        allowed &= free_columns[j];
        cols.push_back(j);
      }
    if (!allowed) continue;
    const std::size_t k = cols.size();
    // Normal equations on columns scaled to unit norm (latency steps and bytes differ by 1e9).
    std::vector<double> norm(k, 0);
    for (std::size_t i = 0; i < t.size(); ++i)
      for (std::size_t p = 0; p < k; ++p)
        norm[p] += (x[i][cols[p]] / t[i]) * (x[i][cols[p]] / t[i]);
    bool empty_column = false;
    for (double& v : norm) {
      v = std::sqrt(v);
      empty_column |= v == 0;
    }
    if (empty_column) continue;
    std::vector<std::vector<double>> a(k, std::vector<double>(k, 0));
    std::vector<double> b(k, 0), c;
    for (std::size_t i = 0; i < t.size(); ++i) {
      const double r = (t[i] - known[i]) / t[i];
      for (std::size_t p = 0; p < k; ++p) {
        const double up = x[i][cols[p]] / t[i] / norm[p];
        b[p] += up * r;
        for (std::size_t q = 0; q < k; ++q) a[p][q] += up * x[i][cols[q]] / t[i] / norm[q];
      }
    }
    if (!solve_linear(a, b, c)) continue;
    for (std::size_t p = 0; p < k; ++p) c[p] /= norm[p];
    bool feasible = c.back() > 0;
    for (double v : c) feasible &= v >= 0;
    if (!feasible) continue;
    std::vector<double> coef(m, 0);
    for (std::size_t p = 0; p < k; ++p) coef[cols[p]] = c[p];
    double sse = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      double e = t[i] - known[i];
      for (std::size_t j = 0; j < m; ++j) e -= coef[j] * x[i][j];
      sse += (e / t[i]) * (e / t[i]);
    }
    if (sse < best.sse * (1 - 1e-9) - 1e-15) best = {coef, sse, true};
  }
  return best;
}

}  // namespace collreplay::project
