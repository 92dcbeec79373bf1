#include "bench/compute/host_pacer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace collreplay {
namespace {

using Clock = HostPacer::Clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A launch waits for its host time after the previous launch; a host running ahead of it (its
// time already past, as behind a busy GPU) does not wait again.
TEST(HostPacer, ALaunchWaitsItsHostTimeAfterThePreviousOne) {
  HostPacer host;
  host.start();
  Clock::time_point t0 = Clock::now();
  host.before_launch(30000);
  EXPECT_GE(ms_since(t0), 29.9);
  // Margins of tens of ms: a loaded machine may hold a thread back a few.
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  t0 = Clock::now();
  host.before_launch(30000);
  EXPECT_LT(ms_since(t0), 20.0);
}

// After a host sync the next launch's host time runs from the sync's return, not from the launch
// before the sync: the wait (60 ms here, a drained GPU's) does not pay for the Python after it.
TEST(HostPacer, TheHostTimeAfterASyncRunsFromItsReturn) {
  HostPacer host;
  host.start();
  host.before_launch(0);                                       // the sync's launch
  std::this_thread::sleep_for(std::chrono::milliseconds(60));  // its wait
  host.after_sync();
  const Clock::time_point t0 = Clock::now();
  host.before_launch(30000);
  EXPECT_GE(ms_since(t0), 29.9);
}

}  // namespace
}  // namespace collreplay
