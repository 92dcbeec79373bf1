// Shared by the GPU engine tests: how long an engine takes to issue and run one op.
#pragma once
#include "bench/compute/compute_engine.hpp"

namespace collreplay::testing_gpu {

// Milliseconds per issue of `op`, over `reps` issues after a warm-up.
inline double time_op(ComputeEngine& engine, const ComputeOp& op, double scale, int reps) {
  engine.issue(op, scale, {});
  auto start = engine.record();
  for (int i = 0; i < reps; ++i) engine.issue(op, scale, {});
  auto stop = engine.record();
  stop->synchronize();
  return stop->elapsed_ms_since(*start) / reps;
}

}  // namespace collreplay::testing_gpu
