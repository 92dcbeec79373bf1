// replay -G: the comm-only step recorded as one CUDA graph on the NCCL communicator launches and
// is timed like an eager comm-only step (bench/replay/measure/graph_step.hpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>

#include "bench/app/stats.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/measure/graph_step.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "gpu_env.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"

namespace collreplay {
namespace {

using testing_gpu::have_gpu;
using testing_gpu::my_device;

TEST(ReplayGraph, TheCommOnlyStepAsOneGraphIsTimedLikeTheEagerOne) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  BackendOptions backend;
  backend.timeout_seconds = 120;
  const std::unique_ptr<Communicator> world = make_nccl_communicator(MPI_COMM_WORLD, backend);
  Schedule schedule = testing::two_unit_schedule(std::uint64_t{8} << 20, 256);
  schedule.world = world->size();
  const GroupComms groups(*world, schedule, 0);
  const std::unique_ptr<ComputeEngine> engine = make_cublas_engine(my_device());
  ExecutorOptions options;
  options.steps = 3;
  options.timeout_s = 120;
  const AgreeMax slowest = [](double ms) {
    double max = ms;
    MPI_Allreduce(MPI_IN_PLACE, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
  };
  Executor executor(schedule, groups, *engine, options, slowest);
  executor.warm_up();
  const PassResult eager = executor.run_pass(PassKind::comm_only);
  const double graph_ms = time_comm_only_graph(executor, 5, slowest);
  EXPECT_GT(graph_ms, 0);
  // The same four collectives: the graph saves launches, it cannot make the copies vanish, and
  // it must not take much longer than launching them one by one.
  EXPECT_LT(graph_ms, 3 * median(eager.agreed_step_ms) + 1) << median(eager.agreed_step_ms);
}

}  // namespace
}  // namespace collreplay
