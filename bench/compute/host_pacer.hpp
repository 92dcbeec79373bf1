// The framework's host between an engine's launches, on the wall clock: each launch waits until
// its host time has passed since the previous launch (a host running ahead of a busy GPU only
// queues), and a host sync (nonzero, .item()) restarts the clock when its wait returns, since
// torch's Python after a sync runs then, with the GPU drained, as compute_model.cpp's timeline
// has it. Without the restart the host time after a sync was spent during the wait: on an H200
// the looped Mixtral's reference GPU idled 106-118 us after each of its 132 syncs a step (its
// profiled step) where replay's did not (bench/RESULTS.md, "Host time per launch").
#pragma once
#include <chrono>

namespace collreplay {

class HostPacer {
 public:
  using Clock = std::chrono::steady_clock;

  // The step's host starts now.
  void start() { last_launch_ = Clock::now(); }
  // Waits until `host_us` after the previous launch (none when that is past); the launch starts
  // when it returns.
  void before_launch(double host_us);
  // A host sync's wait has returned: the next launch's host time runs from now.
  void after_sync() { last_launch_ = Clock::now(); }

 private:
  Clock::time_point last_launch_ = Clock::now();
};

}  // namespace collreplay
