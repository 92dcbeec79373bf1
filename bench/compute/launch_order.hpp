// A compute op as the launches an engine makes, in order: each GEMM (stretched by the
// calibration scale, compute_scale.hpp) and each kernel slice split into its launches, with the
// host time the framework spends before each launch. Pure; shared by every engine so they all
// run one order.
#pragma once
#include <cstdint>
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

struct Launch {
  bool is_gemm = false;
  GemmShape gemm;      // is_gemm
  KernelSlice kernel;  // otherwise: one launch's share of the slice (launches == 1)
  double host_us = 0;  // host time spent before this launch
};

// `scale` (>= 0) stretches every GEMM as stretch_gemms does and every kernel's bytes, elements
// and duration by the same factor.
std::vector<Launch> launch_order(const ComputeOp& op, double scale);

// The largest bytes one kernel launch of the op reads or writes (what an engine's kernel
// buffers must hold before wrapping around).
std::uint64_t largest_kernel_launch_bytes(const ComputeOp& op);

}  // namespace collreplay
