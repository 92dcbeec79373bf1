// Host threading: the polling back-off schedule, the oversubscription warning and the MPI
// thread-level check.
#include <gtest/gtest.h>
#include <mpi.h>

#include "bench/compute/cpu/host_threads.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "common/errors.hpp"
#include "common/poll_backoff.hpp"

namespace collreplay {
namespace {

using std::chrono::microseconds;

TEST(PollBackoff, YieldsFirstThenSleepsASliceOfTheWaitUpToOneMillisecond) {
  EXPECT_EQ(PollBackoff::pause_after(microseconds{0}).count(), 0);
  EXPECT_EQ(PollBackoff::pause_after(microseconds{500}).count(), 0);  // short ops: no sleep
  EXPECT_EQ(PollBackoff::pause_after(microseconds{800}).count(), 50);
  EXPECT_EQ(PollBackoff::pause_after(microseconds{3200}).count(), 200);
  EXPECT_EQ(PollBackoff::pause_after(microseconds{60'000'000}).count(), 1000);
  // Never later than 1/16 of the wait so far: completion is seen at most ~6% late.
  for (long waited = 0; waited < 100'000; waited += 777)
    EXPECT_LE(PollBackoff::pause_after(microseconds{waited}).count() * 16, waited);
}

TEST(HostThreads, WarnsOnlyWhenThreadsExceedCores) {
  EXPECT_EQ(oversubscription_warning(1, 1, 2), "");
  EXPECT_EQ(oversubscription_warning(2, 3, 8), "");
  const std::string warning = oversubscription_warning(4, 1, 2);
  EXPECT_NE(warning.find("4 ranks x (1 compute thread + 1 polling thread) = 8 threads on 2 cores"),
            std::string::npos)
      << warning;
  EXPECT_NE(oversubscription_warning(2, 2, 5), "");
  EXPECT_GE(usable_cores(), 1);
}

TEST(HostThreads, MpiThreadLevelBelowFunneledIsAnError) {
  EXPECT_NO_THROW(require_mpi_thread_level(MPI_THREAD_FUNNELED, MPI_THREAD_FUNNELED));
  EXPECT_NO_THROW(require_mpi_thread_level(MPI_THREAD_MULTIPLE, MPI_THREAD_FUNNELED));
  try {
    require_mpi_thread_level(MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED);
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("provides MPI_THREAD_SINGLE"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("needs MPI_THREAD_FUNNELED"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collreplay
