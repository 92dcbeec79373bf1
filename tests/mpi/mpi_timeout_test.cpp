// A rank that never joins a collective turns into TimeoutError (naming the op) within the
// deadline on the ranks that wait, instead of a hang.
#include <gtest/gtest.h>

#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

TEST(MpiTimeout, MissingRankBecomesTimeoutError) {
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size < 2) GTEST_SKIP() << "needs at least 2 ranks";
  BackendOptions options;
  options.timeout_seconds = 0.5;
  MpiCommunicator comm(MPI_COMM_WORLD, options);
  const int late = size - 1;
  std::vector<float> data(1024, 1.0f);
  if (rank != late) {
    comm.all_reduce(data.data(), data.data(), data.size(), DType::f32);
    const double start_s = MPI_Wtime();
    try {
      comm.wait_all("layer 3 gradient sync");
      ADD_FAILURE() << "wait_all returned although rank " << late << " never joined";
    } catch (const TimeoutError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("layer 3 gradient sync"), std::string::npos) << what;
      EXPECT_NE(what.find("all_reduce of 4 KiB"), std::string::npos) << what;
    }
    EXPECT_LT(MPI_Wtime() - start_s, 5.0);
  }
  // The late rank joins only after the others have timed out, so the op can finish cleanly.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == late) comm.all_reduce(data.data(), data.data(), data.size(), DType::f32);
  comm.set_timeout_seconds(30);
  comm.wait_all("late join");
  EXPECT_EQ(data[0], static_cast<float>(size));
}

}  // namespace
}  // namespace collreplay
