// A rank that fails alone must not take the "every rank agrees" exit (the others would wait for
// it for ever): the agreement times out; when every rank fails, it holds. Cross-rank gathers
// with a rank missing turn into TimeoutError instead of a hang.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "bench/app/cross_rank.hpp"
#include "bench/app/guarded_main.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

TEST(FailureAgreement, OneRankFailingAloneIsNotAnAgreement) {
  if (world_size() < 2) GTEST_SKIP() << "needs at least 2 ranks";
  const int failing = world_size() - 1;
  if (world_rank() == failing) {
    const double start_s = MPI_Wtime();
    EXPECT_FALSE(all_ranks_failed_within(0.5));
    EXPECT_LT(MPI_Wtime() - start_s, 10.0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The others now fail too: their messages meet the ones the failing rank left posted.
  if (world_rank() != failing) {
    EXPECT_TRUE(all_ranks_failed_within(30));
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(FailureAgreement, EveryRankFailingAgrees) {
  EXPECT_TRUE(all_ranks_failed_within(30));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(CrossRankTimeout, MissingRankTimesOutInsteadOfHanging) {
  if (world_size() < 2) GTEST_SKIP() << "needs at least 2 ranks";
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int late = world_size() - 1;
  const double mine = world_rank();
  if (world_rank() != late) {
    const double start_s = MPI_Wtime();
    try {
      gather_stats_to_root(comm, std::span(&mine, 1), 0.5);
      if (world_rank() == 0) ADD_FAILURE() << "the gather finished without rank " << late;
    } catch (const TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("gather of times"), std::string::npos) << e.what();
    }
    EXPECT_LT(MPI_Wtime() - start_s, 10.0);
  }
  // The gather left in flight is never joined (its buffer is gone): `comm` is not used again.
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(CrossRankAgreement, AProblemOnOneRankStopsEveryRank) {
  const int troubled = world_size() - 1;
  const std::string problem = world_rank() == troubled ? "rank-only problem" : "";
  try {
    throw_if_any_rank_has(MPI_COMM_WORLD, problem, 30);
    ADD_FAILURE() << "no UsageError on rank " << world_rank();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "rank-only problem");
  }
  EXPECT_NO_THROW(throw_if_any_rank_has(MPI_COMM_WORLD, "", 30));
}

}  // namespace
}  // namespace collreplay
