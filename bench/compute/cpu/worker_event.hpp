// A StreamEvent for a host worker thread (the BLAS engine): a done flag set by whoever
// finishes the work, with the time it finished.
#pragma once
#include <atomic>
#include <chrono>

#include "collectives/communicator.hpp"

namespace collreplay {

class WorkerEvent : public StreamEvent {
 public:
  using Clock = std::chrono::steady_clock;

  // Stamps the current time and wakes waiters; called once, by the thread that did the work.
  void complete();

  bool query() override { return done_.load(std::memory_order_acquire); }
  void synchronize() override;
  double elapsed_ms_since(const StreamEvent& earlier) const override;
  void* native_handle() const override { return nullptr; }

 private:
  std::atomic<bool> done_{false};
  Clock::time_point completed_at_{};  // written before done_ is released
};

}  // namespace collreplay
