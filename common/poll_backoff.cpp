#include "common/poll_backoff.hpp"

#include <algorithm>
#include <thread>

namespace collreplay {

std::chrono::microseconds PollBackoff::pause_after(std::chrono::microseconds waited) {
  constexpr std::chrono::microseconds kShortest{50}, kLongest{1000};
  const std::chrono::microseconds slice = waited / 16;
  if (slice < kShortest) return std::chrono::microseconds{0};
  return std::min(slice, kLongest);
}

void PollBackoff::pause() {
  const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_);
  const std::chrono::microseconds pause = pause_after(waited);
  if (pause.count() == 0)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(pause);
}

}  // namespace collreplay
