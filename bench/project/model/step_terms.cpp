#include "bench/project/model/step_terms.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "bench/project/model/mechanisms.hpp"
#include "bench/project/model/step_sim.hpp"

namespace collreplay::project {

double NormalMaxima::expected_max(int n) {
  if (n <= 1) return 0;
  auto found = known_.find(n);
  if (found != known_.end()) return found->second;
  // E[max] = integral of x n phi(x) Phi(x)^(n-1): the maximum of 10^6 normals stays below 6.
  const double step = 0.002;
  double sum = 0;
  for (double x = -8; x <= 8; x += step) {
    const double phi = std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-x / std::numbers::sqrt2);
    sum += x * n * phi * std::pow(cdf, n - 1) * step;
  }
  known_[n] = sum;
  return sum;
}

double slowest_link_factor(int nodes, double spread, NormalMaxima& maxima) {
  if (spread <= 0 || nodes <= 1) return 1;
  return std::exp(-spread * maxima.expected_max(nodes));
}

double compute_factor(const StepTerms& terms, int world, NormalMaxima& maxima) {
  return terms.compute_scale * slowest_rank_factor(std::max(world, 1), terms.rank_jitter_cv, maxima);
}

double collective_ms(CollKind kind, double bytes, const GroupSpan& span, const FabricModel& model,
                     const StepTerms& terms, NormalMaxima& maxima, Algo* algo) {
  FabricModel at_span =
      terms.nccl_hop_latency ? with_nccl_latency_floor(model, kind, bytes, span) : model;
  at_span.inter.bw_gbyte_s *= slowest_link_factor(span.nodes, terms.link_spread, maxima);
  const Prediction p = predict(kind, bytes, span, at_span);
  if (algo) *algo = p.algo;
  return p.time_us / 1e3 + (span.nodes > 1 ? terms.inter_overhead_ms : 0);
}

std::vector<double> slowed_compute_ms(const Schedule& s, std::vector<double> op_ms,
                                      double slowdown) {
  if (slowdown <= 0) return op_ms;
  slowdown = std::min(slowdown, 0.999);  // 1 would stop compute for good
  std::vector<double> overlapped(s.ops.size(), 0.0);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const int behind = s.ops[i].hides_behind;
    if (s.ops[i].is_collective() && behind >= 0 && static_cast<std::size_t>(behind) < s.ops.size())
      overlapped[behind] += op_ms[i];
  }
  // Under overlap the compute advances at (1 - slowdown): it is stretched by slowdown x overlap,
  // until the comm outlasts it and all of it runs slowed (compute / (1 - slowdown)).
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (!s.ops[i].is_collective() && overlapped[i] > 0)
      op_ms[i] += slowdown * std::min(overlapped[i], op_ms[i] / (1 - slowdown));
  return op_ms;
}

double optimizer_phase_ms(const Schedule& s, const std::vector<double>& op_ms) {
  double ms = 0;
  for (std::size_t i = 0; i < s.ops.size() && i < op_ms.size(); ++i)
    if (s.ops[i].phase == Phase::optimizer) ms += op_ms[i];
  return ms;
}

double overlapped_step_ms(const Schedule& s, const std::vector<double>& op_ms,
                          const StepTerms& terms) {
  return simulate_step_ms(s, slowed_compute_ms(s, op_ms, terms.compute_slowdown));
}

}  // namespace collreplay::project
