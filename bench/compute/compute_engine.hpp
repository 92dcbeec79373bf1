// A compute engine runs a schedule's GEMM slices on its own stream: cuBLAS on a CUDA stream
// (cuda/compute_cublas.cpp) or a BLAS on a host worker thread (compute_blas.cpp).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

class ComputeEngine {
 public:
  virtual ~ComputeEngine() = default;
  // "cuBLAS bf16 on NVIDIA H200 (GPU 0)", "OpenBLAS fp32, 4 threads".
  virtual std::string description() const = 0;
  // True when work is queued on a device stream: the executor may issue an op as soon as its
  // dependencies are issued, passing their events. False: the executor issues an op only once
  // its dependencies are done, and `after` is empty.
  virtual bool enqueues_on_device() const = 0;
  // Allocates operands big enough for every shape once, before anything is timed; returns the
  // bytes reserved. Throws UsageError when they cannot fit, naming the size.
  virtual std::uint64_t reserve(const std::vector<GemmShape>& shapes, DType dtype) = 0;
  // Runs every GEMM of `op`, stretched by `scale` (calibration; 1 = the exact shapes), after the
  // events in `after` are done. Returns at once; completion is seen through record().
  virtual void issue(const ComputeOp& op, double scale,
                     std::span<const std::shared_ptr<StreamEvent>> after) = 0;
  virtual std::shared_ptr<StreamEvent> record() = 0;
  virtual void synchronize() = 0;
};

}  // namespace collreplay
