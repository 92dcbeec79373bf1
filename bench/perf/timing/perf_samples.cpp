#include "bench/perf/timing/perf_samples.hpp"

#include "collectives/mpi/mpi_watched.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/mpi/mpi_check.hpp"

namespace collreplay {
namespace {

// Linear interpolation between closest ranks (numpy's default), on sorted values.
double percentile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
}

}  // namespace

SampleSummary summarize_samples(std::span<const double> values) {
  SampleSummary s;
  s.samples = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());
  double sum = 0;
  for (double v : sorted) sum += v;
  s.mean = sum / n;
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = percentile(sorted, 0.5);
  s.p95 = percentile(sorted, 0.95);
  if (sorted.size() > 1 && s.mean > 0) {
    double squares = 0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.cv = std::sqrt(squares / (n - 1)) / s.mean;
  }
  // The median lies between the j-th and k-th smallest of n samples with ~95% probability for
  // j = n/2 - 1.96 sqrt(n)/2 and k = 1 + n/2 + 1.96 sqrt(n)/2 (1-based, rounded outwards).
  const double half_width = 1.96 * std::sqrt(n) / 2;
  const double j = std::floor(n / 2 - half_width), k = std::ceil(1 + n / 2 + half_width);
  s.p50_ci_lo = j >= 1 ? sorted[static_cast<std::size_t>(j) - 1] : s.min;
  s.p50_ci_hi = k <= n ? sorted[static_cast<std::size_t>(k) - 1] : s.max;
  return s;
}

bool median_is_stable(const SampleSummary& s, double pct) {
  if (s.samples < kMinStableSamples || s.p50 <= 0) return false;
  const double limit = s.p50 * pct / 100;
  return s.p50 - s.p50_ci_lo <= limit && s.p50_ci_hi - s.p50 <= limit;
}

void combine_samples_across_ranks(std::vector<double>& values, RankReduce how, MPI_Comm comm,
                                  double timeout_s) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (how == RankReduce::rank0 && rank != 0)
    std::fill(values.begin(), values.end(), 0.0);  // the sum is then rank 0's values
  const MPI_Op op = how == RankReduce::max ? MPI_MAX : how == RankReduce::min ? MPI_MIN : MPI_SUM;
  all_reduce_in_place(comm, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, op,
                      timeout_s, "the cross-rank exchange of this size's times");
  if (how != RankReduce::avg) return;
  int size = 1;
  MPI_Comm_size(comm, &size);
  for (double& v : values) v /= size;
}

}  // namespace collreplay
