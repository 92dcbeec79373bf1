// How a thread that polls for completion (MPI requests, worker events) waits between polls:
// yield while the wait is young, so short ops are seen done at once, then sleep for a slice of
// the time already waited (1/16, at most 1 ms), so a long wait leaves the core to the BLAS
// threads and peer ranks while seeing completion at most ~6% late. Sleeps start once they
// would exceed Linux's default 50 us timer slack anyway.
#pragma once
#include <chrono>

namespace collreplay {

class PollBackoff {
 public:
  using Clock = std::chrono::steady_clock;

  // The pause after an unsuccessful poll, `waited` into the wait; zero means yield.
  static std::chrono::microseconds pause_after(std::chrono::microseconds waited);

  // Call after each unsuccessful poll.
  void pause();
  // Call when the awaited thing changes (something completed): the next wait starts young.
  void reset() { start_ = Clock::now(); }

 private:
  Clock::time_point start_ = Clock::now();
};

}  // namespace collreplay
