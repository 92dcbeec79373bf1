#include "collectives/device/cuda_event.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {

void wait_for_cuda_event(cudaEvent_t event, const EventWaitPolicy& policy,
                         const std::string& what_for) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_health = start;
  for (;;) {
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) CUDA_CHECK(status);
    const Clock::time_point now = Clock::now();
    if (policy.check_health && now - last_health > std::chrono::milliseconds(1)) {
      policy.check_health();
      last_health = now;
    }
    const double waited_s = std::chrono::duration<double>(now - start).count();
    if (policy.timeout_seconds > 0 && waited_s > policy.timeout_seconds) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", policy.timeout_seconds);
      const std::string message =
          what_for + " did not finish within " + seconds + " s (" + policy.where + ")";
      if (policy.on_timeout) policy.on_timeout(message);
      throw TimeoutError(message);
    }
    // Yield rather than sleep: the wait sits right before timed work, and a sleep's wake-up
    // latency would delay issuing it; NCCL's proxy threads still get the core when they need it.
    std::this_thread::yield();
  }
}

CudaStreamEvent::CudaStreamEvent(cudaStream_t stream, EventWaitPolicy policy, std::string label)
    : policy_(std::move(policy)), label_(std::move(label)) {
  CUDA_CHECK(cudaEventCreate(&event_));  // default flags: timing enabled
  CUDA_CHECK(cudaEventRecord(event_, stream));
}

CudaStreamEvent::~CudaStreamEvent() { cudaEventDestroy(event_); }

bool CudaStreamEvent::query() {
  const cudaError_t status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) {
    if (policy_.check_health) policy_.check_health();
    return false;
  }
  CUDA_CHECK(status);
  return true;
}

void CudaStreamEvent::synchronize() { wait_for_cuda_event(event_, policy_, label_); }

double CudaStreamEvent::elapsed_ms_since(const StreamEvent& earlier) const {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(earlier.native_handle()), event_));
  return ms;
}

}  // namespace collreplay
