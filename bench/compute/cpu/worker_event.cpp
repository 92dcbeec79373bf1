#include "bench/compute/cpu/worker_event.hpp"

#include "common/errors.hpp"

namespace collreplay {

void WorkerEvent::complete() {
  completed_at_ = Clock::now();
  done_.store(true, std::memory_order_release);
  done_.notify_all();
}

void WorkerEvent::synchronize() { done_.wait(false, std::memory_order_acquire); }

double WorkerEvent::elapsed_ms_since(const StreamEvent& earlier) const {
  const auto* other = dynamic_cast<const WorkerEvent*>(&earlier);
  if (!other)
    throw RuntimeError("WorkerEvent::elapsed_ms_since: the earlier event is not a host event");
  if (!done_.load(std::memory_order_acquire) || !other->done_.load(std::memory_order_acquire))
    throw RuntimeError("WorkerEvent::elapsed_ms_since: an event is not done yet");
  return std::chrono::duration<double, std::milli>(completed_at_ - other->completed_at_).count();
}

}  // namespace collreplay
