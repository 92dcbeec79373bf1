// Grouped GEMMs (GemmShape::group_rows): their FLOPs, construction and scaling, shared by the
// schedule builder, the engines and the readers so each sums a group's own rows.
#include "workloads/grouped_gemm.hpp"

#include <cmath>
#include <numeric>
#include <string>

#include "common/errors.hpp"

namespace collreplay {

std::int64_t grouped_rows_total(const GemmShape& g) {
  return std::accumulate(g.group_rows.begin(), g.group_rows.end(), std::int64_t{0});
}

double gemm_shape_flops(const GemmShape& g) {
  const auto d = [](std::int64_t v) { return static_cast<double>(v); };
  if (g.group_rows.empty()) return 2.0 * d(g.m) * d(g.n) * d(g.k) * d(g.batch);
  const double rows = d(grouped_rows_total(g));
  return 2.0 * rows * d(g.n) * (g.group_k ? d(g.m) : d(g.k));
}

namespace {
// The rows' mean rounded up: with `batch` groups packed one after another, m x k x batch (or
// k x m x batch) holds them all, as the engines size their operands.
std::int64_t mean_rows_up(const std::vector<std::int64_t>& rows) {
  if (rows.empty()) return 0;
  const std::int64_t total = std::accumulate(rows.begin(), rows.end(), std::int64_t{0});
  const auto groups = static_cast<std::int64_t>(rows.size());
  return (total + groups - 1) / groups;
}
}  // namespace

GemmShape grouped_gemm(std::vector<std::int64_t> rows, std::int64_t m, std::int64_t n,
                       std::int64_t k, bool group_k, std::string label) {
  for (std::int64_t r : rows)
    if (r < 0) throw UsageError("grouped GEMM '" + label + "' has a group of negative rows");
  GemmShape g;
  g.n = n;
  g.batch = static_cast<std::int64_t>(rows.size());
  g.group_k = group_k;
  g.label = std::move(label);
  (group_k ? g.k : g.m) = mean_rows_up(rows);
  (group_k ? g.m : g.k) = group_k ? m : k;
  g.a_transposed = group_k;  // dW = dY^T X: A (dY) read transposed, as torch's backward does
  g.group_rows = std::move(rows);
  return g;
}

std::string grouped_gemm_problem(const GemmShape& g) {
  if (static_cast<std::int64_t>(g.group_rows.size()) != g.batch)
    return "has " + std::to_string(g.group_rows.size()) + " group_rows but batch " +
           std::to_string(g.batch);
  const std::int64_t grouped = g.group_k ? g.k : g.m, mean = mean_rows_up(g.group_rows);
  if (grouped != mean)
    return std::string(g.group_k ? "k" : "m") + " is " + std::to_string(grouped) +
           " but the groups' mean rows rounded up are " + std::to_string(mean);
  return "";
}

GemmShape scale_gemm_rows(GemmShape g, double fraction) {
  if (g.group_rows.empty()) {
    g.m = std::llround(static_cast<double>(g.m) * fraction);
    return g;
  }
  for (std::int64_t& r : g.group_rows) r = std::llround(static_cast<double>(r) * fraction);
  (g.group_k ? g.k : g.m) = mean_rows_up(g.group_rows);
  return g;
}

}  // namespace collreplay
