#include <cuda_runtime.h>

#include <string>

#include "bench/executor/stream_wait.hpp"
#include "common/errors.hpp"

namespace collreplay {

void stream_wait(void* native_stream, const StreamEvent& event) {
  auto* cuda_event = static_cast<cudaEvent_t>(event.native_handle());
  if (!native_stream || !cuda_event)
    throw RuntimeError("stream_wait: a device dependency without a CUDA stream or event");
  const cudaError_t rc = cudaStreamWaitEvent(static_cast<cudaStream_t>(native_stream), cuda_event, 0);
  if (rc != cudaSuccess)
    throw RuntimeError(std::string("cudaStreamWaitEvent: ") + cudaGetErrorString(rc));
}

}  // namespace collreplay
