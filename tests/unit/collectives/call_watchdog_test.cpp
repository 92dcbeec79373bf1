// A call that blocks inside a library (a blocking NCCL communicator's launch, init or split)
// cannot hang the job: the call watchdog's thread ends the process, naming the call; short calls,
// however many, and time spent outside calls never trigger it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "collectives/call_watchdog.hpp"

namespace collreplay {
namespace {

using namespace std::chrono_literals;

TEST(CallWatchdogDeathTest, AStuckCallEndsTheProcessWithExit4NamingItsSize) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // other tests leave BLAS threads running
  EXPECT_EXIT(
      {
        CallWatchdog watchdog(0.3, "NCCL rank 0 of 2 on host h, GPU 0");
        const CallWatchdog::Scope watched(watchdog, {"ncclAllGather", 8388608, DType::f32});
        std::this_thread::sleep_for(60s);  // "blocked inside the library"
      },
      ::testing::ExitedWithCode(4),
      "ncclAllGather of 32 MiB per rank \\(8388608 x fp32\\) did not finish within 0.3 s \\(NCCL "
      "rank 0 of 2 on host h, GPU 0\\)");
}

TEST(CallWatchdogDeathTest, AnErrorReportedDuringACallEndsTheProcessWithExit1) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CallWatchdog watchdog(0, "rank 1", [] { return std::string("remote process exited"); });
        const CallWatchdog::Scope watched(watchdog, "ncclCommSplit");
        std::this_thread::sleep_for(60s);
      },
      ::testing::ExitedWithCode(1), "ncclCommSplit failed while in progress: remote process exited");
}

TEST(CallWatchdog, ManyShortCallsOutlastingTheTimeoutTogetherNeverFire) {
  CallWatchdog watchdog(0.15, "rank 0");
  const auto end = std::chrono::steady_clock::now() + 600ms;
  while (std::chrono::steady_clock::now() < end) {
    const CallWatchdog::Scope watched(watchdog, {"ncclAllReduce", 1, DType::f32});
    std::this_thread::sleep_for(20ms);
  }
  SUCCEED();  // still alive
}

TEST(CallWatchdog, TimeOutsideCallsIsNotWatchedNorHealthChecked) {
  std::atomic<int> checks = 0;
  CallWatchdog watchdog(0.1, "rank 0", [&checks] {
    ++checks;
    return std::string("broken");
  });
  { const CallWatchdog::Scope watched(watchdog, "cudaEventRecord"); }
  std::this_thread::sleep_for(400ms);  // idle: longer than the timeout
  EXPECT_EQ(checks.load(), 0);
}

TEST(CallWatchdog, ZeroTimeoutNeverFires) {
  CallWatchdog watchdog(0.2, "rank 0");
  watchdog.set_timeout_seconds(0);
  const CallWatchdog::Scope watched(watchdog, "ncclCommInitRankConfig");
  std::this_thread::sleep_for(500ms);
  SUCCEED();
}

TEST(CallWatchdog, StoppedItNeverChecksAgain) {
  std::atomic<int> checks = 0;
  CallWatchdog watchdog(0, "rank 0", [&checks] {
    ++checks;
    return std::string();
  });
  watchdog.stop();
  const CallWatchdog::Scope watched(watchdog, "ncclCommFinalize");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(checks.load(), 0);
  watchdog.stop();  // idempotent
}

}  // namespace
}  // namespace collreplay
