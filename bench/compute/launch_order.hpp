// A compute op as the launches an engine makes, in order: each GEMM (stretched by the
// calibration scale, compute_scale.hpp) and each kernel slice split into its launches, with the
// host time the framework spends before each launch. Pure; shared by every engine so they all
// run one order.
#pragma once
#include <cstdint>
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

// Which of its slice's launches a launch is (index 0 .. count - 1).
struct SliceShare {
  std::uint64_t index = 0, count = 1;
};

struct Launch {
  bool is_gemm = false;
  GemmShape gemm;      // is_gemm
  KernelSlice kernel;  // otherwise: one launch's share of the slice (launches == 1)
  // Which share of its slice: the launches of one slice walk on through
  // memory, as torch's launches of one foreach op walk on through its tensors' chunks and a
  // for-loop's kernels through its tensors, instead of each re-reading the first share (which
  // L2 would hold: a 64M-element foreach mul_ in four launches of 32 MB ran at 0.58 of torch's
  // time on an H200).
  SliceShare share;
  // Host time spent before this launch: the op's host time over its launches, a foreach
  // call's (a multi-tensor slice's) before its first launch but for each later launch's own
  // (KernelSlice::host_us_per_launch).
  double host_us = 0;
};

// `scale` (>= 0) stretches every GEMM as stretch_gemms does and every kernel's bytes, elements
// and duration by the same factor.
std::vector<Launch> launch_order(const ComputeOp& op, double scale);

// The largest bytes one kernel launch of the op reads or writes (what an engine's kernel
// buffers must hold before wrapping around).
std::uint64_t largest_kernel_launch_bytes(const ComputeOp& op);

}  // namespace collreplay
