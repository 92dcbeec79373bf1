// The NCCL communicator is a blocking one (collectives/nccl/nccl_setup.cpp): a launch that cannot
// proceed blocks its caller inside NCCL, where no exception reaches it. Its call watchdog must
// still end the rank within the timeout (plus a few polls), exit code 4, naming the op and its
// size. The stuck rank runs in a child process (this binary, running the DISABLED_ helper
// below as a one-rank MPI job of its own, started by the launcher: on the torch image an MPI
// singleton cannot start its daemon, "Unable to start a daemon on the local node"), since it
// ends itself.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "collectives/device/stream_hold.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "gpu_env.hpp"
#include "tests/support/subprocess.hpp"

extern char** environ;

namespace collreplay {
namespace {

using testing_gpu::have_gpu;

constexpr double kTimeoutS = 2;

// The child's launcher must not take itself for a rank of this job: drop what the launcher set
// for its ranks (their ids, its daemon's address, its session), but keep the MCA settings the
// machine gave every launcher (the torch image sets OMPI_MCA_plm=isolated: it has no ssh, and a
// child mpirun without it fails in plm_rsh before starting anything).
bool set_by_launcher(const std::string& name) {
  auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  if (starts("OMPI_ALLOW_RUN_AS_ROOT")) return false;
  if (starts("OMPI_MCA_") || starts("PMIX_MCA_")) {
    for (const char* internal : {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix",
                                 "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_"})
      if (starts(internal)) return true;
    return false;
  }
  for (const char* prefix : {"OMPI_", "PMIX_", "PMI_", "ORTE_", "OPAL_"})
    if (starts(prefix)) return true;
  return false;
}

std::string without_launcher_environment() {
  std::string unset;
  for (char** entry = environ; *entry; ++entry) {
    const std::string name(*entry, std::strcspn(*entry, "="));
    if (set_by_launcher(name)) unset += " -u " + name;
  }
  return "env" + unset + " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";
}

class NcclBlocking : public cli_test::ScratchDirTest {};

TEST_F(NcclBlocking, ALaunchBlockedBehindAStuckStreamEndsTheRankNamingTheOp) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks > 1) GTEST_SKIP() << "starts a one-rank job of its own: run with one rank";
  const auto start = std::chrono::steady_clock::now();
  const cli_test::Outcome child =
      run(without_launcher_environment() + " " + cli_test::mpirun_command() + " -np 1 " +
          cli_test::bin_dir().string() + "/gpu_tests --gtest_also_run_disabled_tests "
          "--gtest_filter=NcclBlockingChild.DISABLED_LaunchesBehindAHeldStream");
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(child.exit_code, 4) << child.out << child.err;
  EXPECT_NE(child.err.find("ncclAllGather of 4 B per rank (1 x fp32) did not finish within 2.0 s"),
            std::string::npos)
      << child.err;
  EXPECT_LT(took_s, kTimeoutS + 10) << child.err;  // start-up included
}

// The child: a stream held behind a host function that never returns (as behind kernels that
// wait for a stopped peer) until the queue is full and a launch blocks.
TEST(NcclBlockingChild, DISABLED_LaunchesBehindAHeldStream) {
  BackendOptions options;
  options.timeout_seconds = kTimeoutS;
  const std::unique_ptr<Communicator> comm = make_nccl_communicator(MPI_COMM_WORLD, options);
  void* send = comm->allocate(4);
  void* recv = comm->allocate(4);
  comm->all_gather(send, recv, 1, DType::f32);  // out of place: a copy even at one rank
  comm->wait_all("the first all-gather");
  static const std::atomic<bool> never = false;
  hold_stream_until(comm->native_stream(), &never);
  for (int i = 0; i < 10'000'000; ++i) comm->all_gather(send, recv, 1, DType::f32);
  FAIL() << "ten million launches behind a held stream never blocked";
}

}  // namespace
}  // namespace collreplay
