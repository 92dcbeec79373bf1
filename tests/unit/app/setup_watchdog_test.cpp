// Setup steps that block inside a library (MPI_Comm_split, NCCL bootstrap) cannot hang the job:
// the watchdog ends the process with exit 4, naming the step it waited for.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/app/setup_watchdog.hpp"

namespace collreplay {
namespace {

TEST(SetupWatchdogDeathTest, AStuckStepEndsTheProcessWithExit4NamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // other tests leave BLAS threads running
  EXPECT_EXIT(
      {
        SetupWatchdog watchdog(0.2, "communicator setup (NCCL)");
        watchdog.step("splitting the expert group");
        std::this_thread::sleep_for(std::chrono::seconds(60));  // "stuck"
      },
      ::testing::ExitedWithCode(4), "splitting the expert group did not finish within 0.2 s");
}

TEST(SetupWatchdog, AFinishedStepDisarmsIt) {
  { SetupWatchdog watchdog(0.1, "quick step"); }
  SetupWatchdog watchdog(0.1, "quick step");
  watchdog.disarm();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  SUCCEED();  // still alive
}

TEST(SetupWatchdog, ZeroTimeoutNeverFires) {
  SetupWatchdog watchdog(0, "no watchdog");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace
}  // namespace collreplay
