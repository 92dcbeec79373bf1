#include "bench/compute/host_pacer.hpp"

#include <thread>

namespace collreplay {

// A long wait sleeps first and spins only its last stretch (a sleep overshoots by tens of us): a
// rank pinned to one core must leave it to NCCL's proxy thread, which drives socket and network
// transfers while a framework's host is busy on another core.
void HostPacer::before_launch(double host_us) {
  const Clock::time_point now = Clock::now();
  const auto until = last_launch_ + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double, std::micro>(host_us));
  if (host_us <= 0 || until <= now) {
    last_launch_ = now;
    return;
  }
  constexpr auto kSpinTail = std::chrono::microseconds(100);
  if (until - now > 2 * kSpinTail) std::this_thread::sleep_until(until - kSpinTail);
  while (Clock::now() < until) {
  }
  last_launch_ = until;
}

}  // namespace collreplay
