// CUDA-graph capture of NCCL work (the perf executables' -G, as in nccl-tests): ops recorded once
// and replayed with one graph launch, so that small messages pay one launch for many ops.
#include <memory>

#include "collectives/device/cuda_check.hpp"
#include "collectives/nccl/nccl_internal.hpp"

namespace collreplay {
namespace {

class CudaGraphWork final : public CapturedWork {
 public:
  // The communicator (and so its watchdog) outlives the graphs it captured.
  CudaGraphWork(cudaGraphExec_t exec, cudaStream_t stream, CallWatchdog& watchdog)
      : exec_(exec), stream_(stream), watchdog_(watchdog) {}
  ~CudaGraphWork() override { cudaGraphExecDestroy(exec_); }
  CudaGraphWork(const CudaGraphWork&) = delete;
  CudaGraphWork& operator=(const CudaGraphWork&) = delete;
  // A launch waits for room in the stream's queue like any other: watched.
  void launch() override {
    const CallWatchdog::Scope scope(watchdog_, "cudaGraphLaunch");
    CUDA_CHECK(cudaGraphLaunch(exec_, stream_));
  }

 private:
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
  CallWatchdog& watchdog_;
};

}  // namespace

std::unique_ptr<CapturedWork> NcclCommunicator::capture(const std::function<void()>& issue) {
  CUDA_CHECK(cudaSetDevice(device_));
  // Thread-local: the monitor's thread may call CUDA (NVML does not) while this thread records.
  CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    issue();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream_, &partial);  // leaves the stream usable for the error path
    if (partial) cudaGraphDestroy(partial);
    throw;
  }
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  CUDA_CHECK(instantiated);
  return std::make_unique<CudaGraphWork>(exec, stream_, *watchdog_);
}

}  // namespace collreplay
