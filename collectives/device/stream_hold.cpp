#include "collectives/device/stream_hold.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

#include "collectives/device/cuda_check.hpp"

namespace collreplay {
namespace {

void CUDART_CB wait_for_release(void* release) {
  const auto* flag = static_cast<const std::atomic<bool>*>(release);
  while (!flag->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

void hold_stream_until(void* stream, const std::atomic<bool>* release) {
  CUDA_CHECK(cudaLaunchHostFunc(static_cast<cudaStream_t>(stream), wait_for_release,
                                const_cast<std::atomic<bool>*>(release)));
}

}  // namespace collreplay
