// The GPU work of a piece of a training step in launch order: GEMMs and the non-GEMM kernels
// between them (a kernel's `at` counts the GEMMs before it), forward and backward.
#pragma once
#include <cstdint>
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

struct Work {
  std::vector<GemmShape> gemms;
  std::vector<KernelSlice> kernels;

  void add_gemm(GemmShape gemm) { gemms.push_back(std::move(gemm)); }
  // Places the kernel after every GEMM added so far.
  void add_kernel(KernelSlice kernel);
  void append(const Work& later);     // `later` runs after this work
  void prepend(const Work& earlier);  // `earlier` runs before this work
  bool empty() const { return gemms.empty() && kernels.empty(); }
  // Kernel launches (GEMMs one each; syncs count as one: the framework issues them too).
  std::uint64_t launches() const;
};

struct WorkSet {
  Work fwd;  // also what activation-checkpoint recompute runs again
  Work bwd;  // in backward execution order
};

}  // namespace collreplay
