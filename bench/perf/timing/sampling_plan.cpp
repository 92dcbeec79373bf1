#include "bench/perf/timing/sampling_plan.hpp"

#include <algorithm>
#include <cmath>

#include "bench/perf/timing/perf_samples.hpp"

namespace collreplay {

SamplingPlan fixed_plan(int iterations, bool sample_each_op) {
  SamplingPlan plan;
  const auto n = static_cast<std::size_t>(std::max(iterations, 1));
  plan.ops_per_sample = sample_each_op ? 1 : static_cast<int>(n);
  plan.max_samples = plan.first_look = sample_each_op ? n : 1;
  return plan;
}

SamplingPlan stable_plan(double op_us, int max_samples, double pct, bool sample_each_op) {
  SamplingPlan plan;
  plan.stable_pct = pct;
  plan.max_samples = static_cast<std::size_t>(std::max(max_samples, 1));
  plan.first_look = std::min(plan.max_samples, kMinStableSamples);
  if (!sample_each_op) {
    const double ops = op_us > 0 ? std::ceil(kSampleSpanUs / op_us) : kMaxOpsPerSample;
    plan.ops_per_sample = static_cast<int>(std::clamp(ops, 1.0, double{kMaxOpsPerSample}));
  }
  return plan;
}

int extra_warmup_ops(double first_op_us, int warmup_iterations) {
  const int cap = std::max(warmup_iterations - 1, 0);
  if (first_op_us <= 0) return cap;
  return static_cast<int>(std::min<double>(cap, std::floor(kWarmupSpanUs / first_op_us)));
}

std::size_t next_look(std::size_t taken, std::size_t max_samples) {
  return std::min(max_samples, taken + std::max<std::size_t>(5, taken / 4));
}

}  // namespace collreplay
