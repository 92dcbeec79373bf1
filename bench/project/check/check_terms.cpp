#include "bench/project/check/check_terms.hpp"

namespace collreplay::project {
namespace {

// The step with `overhead_ms` on every collective that crosses nodes.
double step_with_overhead_ms(const ProjectionInputs& in, const Schedule& s, int nodes,
                             double overhead_ms) {
  ProjectionInputs with = in;
  with.terms.inter_overhead_ms = overhead_ms;
  NormalMaxima maxima;
  return project_schedule(with, s, nodes, maxima).step_ms;
}

// The compute speed-up (%) at which the projected step reaches the target, where the point's
// micro-batch is larger than the first point's: bisection on the compute scale (the step grows
// with it). Negative when the real step is slower (a larger micro-batch that lost speed).
std::optional<double> solve_microbatch_efficiency(const ProjectionInputs& in, const Schedule& s,
                                                  const ProjectionRow& row, double target_ms,
                                                  std::int64_t first_micro_batch) {
  if (in.request.micro_batch <= first_micro_batch || target_ms <= 0) return std::nullopt;
  const auto step_at = [&](double scale) {
    ProjectionInputs with = in;
    with.terms.compute_scale = scale;
    NormalMaxima maxima;
    return project_schedule(with, s, row.nodes, maxima).step_ms;
  };
  double lo = 0.25, hi = 4;
  if (step_at(lo) > target_ms || step_at(hi) < target_ms) return std::nullopt;
  for (int i = 0; i < 40 && hi - lo > 1e-6; ++i) {
    const double mid = (lo + hi) / 2;
    (step_at(mid) < target_ms ? lo : hi) = mid;
  }
  return (1 / ((lo + hi) / 2) - 1) * 100;
}

// The inter-node overhead per collective at which the projected step reaches the target:
// bisection (the step grows with it, monotonically). 0 when the projection is already as slow.
std::optional<double> solve_inter_overhead_ms(const ProjectionInputs& in, const Schedule& s,
                                              const ProjectionRow& row, double target_ms) {
  if (row.nodes < 2) return std::nullopt;
  if (row.step_ms >= target_ms) return 0.0;  // the projection is already as slow as the real step
  double lo = 0, hi = target_ms - row.step_ms;
  for (int grow = 0; step_with_overhead_ms(in, s, row.nodes, hi) < target_ms; ++grow) {
    if (grow == 20) return std::nullopt;  // nothing on the critical path crosses nodes
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 40 && hi - lo > 1e-4; ++i) {
    const double mid = (lo + hi) / 2;
    (step_with_overhead_ms(in, s, row.nodes, mid) < target_ms ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

std::optional<double> projected_term_ms(const ProjectionInputs& in, const Schedule& s,
                                        const ProjectionRow& row, const std::string& term,
                                        double target_step_ms, std::int64_t first_micro_batch) {
  if (term == "exposed_comm") return row.exposed_comm_ms;
  if (term == "optimizer_step") return row.optimizer_ms;
  if (term == "layer_headroom") return row.headroom_ms;
  if (term == "inter_overhead") return solve_inter_overhead_ms(in, s, row, target_step_ms);
  if (term == "microbatch_efficiency")
    return solve_microbatch_efficiency(in, s, row, target_step_ms, first_micro_batch);
  return std::nullopt;
}

std::string projected_term_names() {
  return "exposed_comm, optimizer_step, layer_headroom, inter_overhead, microbatch_efficiency";
}

std::string term_meaning(const std::string& term) {
  if (term == "inter_overhead")
    return "ms on every collective that crosses nodes (StepTerms::inter_overhead_ms, what "
           "`project --observed` fits) to reach the real step";
  if (term == "microbatch_efficiency")
    return "% faster compute per token than at the series' first point, at this point's larger "
           "micro-batch, to reach the real step";
  if (term == "exposed_comm") return "ms per step of communication nothing hides";
  if (term == "optimizer_step") return "ms per step of the optimizer after the last reduce";
  if (term == "layer_headroom") return "ms of the median layer's compute left over its comm";
  return "not a term project computes (" + projected_term_names() + ")";
}

}  // namespace collreplay::project
