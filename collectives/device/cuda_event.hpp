// StreamEvent backed by a timing-enabled cudaEvent_t, shared by the NCCL communicator and the
// cuBLAS compute engine. Waiting polls (never cudaEventSynchronize) so that a hung peer turns
// into a TimeoutError and an asynchronous library error is noticed while waiting.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "collectives/communicator.hpp"

namespace collreplay {

struct EventWaitPolicy {
  double timeout_seconds = 0;          // 0: wait for ever
  std::function<void()> check_health;  // called about every millisecond; throws on failure
  // Called with the timeout's message before TimeoutError is thrown.
  std::function<void(const std::string& message)> on_timeout;
  std::string where;  // "NCCL rank 1 of 2 on host h, GPU 1", for messages
};

// Polls until `event` has completed. Throws TimeoutError naming `what_for` and policy.where.
void wait_for_cuda_event(cudaEvent_t event, const EventWaitPolicy& policy,
                         const std::string& what_for);

class CudaStreamEvent final : public StreamEvent {
 public:
  // Records a new event on `stream` now.
  CudaStreamEvent(cudaStream_t stream, EventWaitPolicy policy, std::string label);
  ~CudaStreamEvent() override;
  CudaStreamEvent(const CudaStreamEvent&) = delete;
  CudaStreamEvent& operator=(const CudaStreamEvent&) = delete;

  bool query() override;
  void synchronize() override;
  double elapsed_ms_since(const StreamEvent& earlier) const override;
  void* native_handle() const override { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
  EventWaitPolicy policy_;
  std::string label_;
};

}  // namespace collreplay
