// A compute engine runs a schedule's compute slices on its own stream: the GEMMs and the
// non-GEMM kernels between them, in launch order (launch_order.hpp), each after the host time
// the framework would spend issuing it. cuBLAS and real memory-bound kernels on a CUDA stream
// (cuda/compute_cublas.cpp), a BLAS on a host worker thread (cpu/compute_blas.cpp), or a modeled GPU
// (compute_model.cpp).
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
  // The device's name as its driver gives it ("NVIDIA H200"); "" for the host and the model.
  virtual std::string device_name() const { return ""; }
  // Allocates operands big enough for every shape once, before anything is timed; returns the
  // bytes reserved. Throws UsageError when they cannot fit, naming the size.
  virtual std::uint64_t reserve(const std::vector<GemmShape>& shapes, DType dtype) = 0;
  // Allocates what the non-GEMM kernels stream through, for launches of up to `launch_bytes`
  // read or written (engines may wrap larger launches around a smaller buffer); returns the
  // bytes reserved. Engines with no memory of their own reserve nothing.
  virtual std::uint64_t reserve_kernels(std::uint64_t launch_bytes) {
    (void)launch_bytes;
    return 0;
  }
  // A step begins: the framework's host starts issuing it now (engines that model the host keep
  // a timeline of their own; others need nothing).
  virtual void begin_step() {}
  // How long a host sync inside a compute op may wait for the device before TimeoutError (the
  // executor's watchdog; 0: for ever).
  virtual void set_sync_timeout(double seconds) { (void)seconds; }
  // Runs every GEMM and kernel of `op`, stretched by `scale` (calibration; 1 = the exact
  // shapes), after the events in `after` are done, spending the op's host time between the
  // launches. Returns once issued (a sync kernel waits for the device first); completion is seen
  // through record().
  virtual void issue(const ComputeOp& op, double scale,
                     std::span<const std::shared_ptr<StreamEvent>> after) = 0;
  virtual std::shared_ptr<StreamEvent> record() = 0;
  virtual void synchronize() = 0;
};

}  // namespace collreplay
