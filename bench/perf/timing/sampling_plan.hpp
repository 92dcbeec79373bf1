// How the perf harness samples one size. A sample is the mean time of ops_per_sample ops issued
// back to back between two events; every rank's samples are combined (--report) before anything
// is decided from them, so all ranks issue the same ops and stop together.
//
// Without --stable (nccl-tests' rule): -w warm-up ops, then -n ops, as one sample (-I 0 on
// NCCL) or one sample per op (-I 1, and always on the MPI backend, which waits for each op).
//
// With --stable PCT:
//  - warm-up sized to need: one op (it pays any first use: connections, registration), then as
//    many more as span kWarmupSpanUs at that op's time, -w ops at most in all, so a 4 GiB size
//    warms up with one op and a small one with -w;
//  - ops per sample sized to the op: enough back-to-back ops to span kSampleSpanUs at the time the
//    warm-up measured (1 from 200 us up, 40 at 5 us), so the event between two samples (a few us
//    of host time) costs a small op at most ~1% instead of as much as the op itself (-I 1 keeps
//    one op per sample);
//  - stopping: look after kMinStableSamples samples, then after every further quarter (at least
//    5 more); stop once the 95% confidence interval of the p50 (order statistics,
//    perf_samples.hpp) lies within +-PCT% of the p50, or at -n samples.
#pragma once
#include <cstddef>

namespace collreplay {

inline constexpr double kWarmupSpanUs = 2000;
inline constexpr double kSampleSpanUs = 200;
inline constexpr int kMaxOpsPerSample = 1000;

struct SamplingPlan {
  int ops_per_sample = 1;
  std::size_t max_samples = 1;
  std::size_t first_look = 1;  // samples before the first look
  double stable_pct = 0;       // 0: never stop early
};

// Without --stable: -n ops, as one sample or one sample per op.
SamplingPlan fixed_plan(int iterations, bool sample_each_op);

// With --stable: `op_us` is the op's time from the warm-up (the largest over the ranks), at most
// `max_samples` samples (-n).
SamplingPlan stable_plan(double op_us, int max_samples, double pct, bool sample_each_op);

// Warm-up ops after the first under --stable, from the first op's time; -w caps the total.
int extra_warmup_ops(double first_op_us, int warmup_iterations);

// After `taken` samples, the sample count at which to look again (at most max_samples).
std::size_t next_look(std::size_t taken, std::size_t max_samples);

}  // namespace collreplay
