#include "bench/executor/executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "bench/app/stats.hpp"
#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/replay/headroom.hpp"
#include "common/errors.hpp"
#include "tests/unit/replay/fake_communicator.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"

namespace collreplay {
namespace {

using testing::FakeCommunicator;
using testing::two_unit_schedule;

constexpr double kCommMsPerMib = 5;  // every collective of the fixture takes 5 ms

struct Rig {
  explicit Rig(int steps, std::int64_t gemm_m = 256)
      : schedule(two_unit_schedule(1 << 20, gemm_m)),
        world(kCommMsPerMib),
        groups(world, schedule, 0),
        engine(make_blas_engine(1)),
        executor(schedule, groups, *engine, options(steps), [](double v) { return v; }) {}
  static ExecutorOptions options(int steps) {
    ExecutorOptions o;
    o.steps = steps;
    o.max_steps = 4;
    o.warmup_steps = 1;
    return o;
  }
  Schedule schedule;
  FakeCommunicator world;
  GroupComms groups;
  std::unique_ptr<ComputeEngine> engine;
  Executor executor;
};

TEST(Executor, AllocatesOnceSizedToTheLargestOp) {
  Rig rig(1);
  // group of 1: all_gather send S/1 + recv S; reduce_scatter send S + recv S/1.
  EXPECT_EQ(rig.executor.collective_buffer_bytes(), 2u << 20);
  EXPECT_EQ(rig.world.allocated_bytes, 2u << 20);
  EXPECT_EQ(rig.executor.compute_buffer_bytes(), 3u * 256 * 256 * 4);
}

TEST(Executor, PassesRunOnlyTheirOps) {
  Rig rig(2);
  const PassResult compute = rig.executor.run_pass(PassKind::compute_only);
  const PassResult comm = rig.executor.run_pass(PassKind::comm_only);
  ASSERT_EQ(compute.step_ms.size(), 2u);
  EXPECT_EQ(compute.op_ms[0], 0);
  EXPECT_GT(compute.op_ms[1], 0);
  EXPECT_EQ(comm.op_ms[1], 0);
  // The fake's collectives take kCommMsPerMib of wall clock; a loaded 2-core CI machine only
  // ever adds to a sleep, so the bounds are one-sided tight and generous above.
  for (int op : {0, 2, 5, 7}) {
    EXPECT_GE(comm.op_ms[op], 0.9 * kCommMsPerMib) << op;
    EXPECT_LE(comm.op_ms[op], 3 * kCommMsPerMib) << op;
  }
  EXPECT_GE(comm.step_ms[0], 0.9 * 4 * kCommMsPerMib);
  EXPECT_LE(comm.step_ms[0], 3 * 4 * kCommMsPerMib);
}

TEST(Executor, OverlappedStepIsPhysical) {
  Rig rig(3);
  rig.executor.warm_up();
  const PassResult compute = rig.executor.run_pass(PassKind::compute_only);
  const PassResult comm = rig.executor.run_pass(PassKind::comm_only);
  const PassResult both = rig.executor.run_pass(PassKind::overlapped);
  const double compute_ms = median(compute.step_ms), comm_ms = median(comm.step_ms);
  const double overlapped_ms = median(both.step_ms);
  EXPECT_GE(overlapped_ms, std::max(compute_ms, comm_ms) * 0.95);
  EXPECT_LE(overlapped_ms, (compute_ms + comm_ms) * 1.2 + 2);  // 2-core CI: scheduling noise
  // Collectives are timed from issue, after their dependencies, never including the wait.
  for (int op : {0, 2, 5, 7}) {
    EXPECT_GE(both.op_ms[op], 0.9 * kCommMsPerMib) << op;
    EXPECT_LE(both.op_ms[op], 3 * kCommMsPerMib) << op;
  }
}

TEST(Executor, OverlappedOpsHaveOrderedStartsAndEnds) {
  Rig rig(3);
  const PassResult both = rig.executor.run_pass(PassKind::overlapped);
  ASSERT_EQ(both.op_start_ms.size(), rig.schedule.ops.size());
  ASSERT_EQ(both.op_end_ms.size(), rig.schedule.ops.size());
  const double longest_step_ms = *std::max_element(both.step_ms.begin(), both.step_ms.end());
  for (std::size_t i = 0; i < rig.schedule.ops.size(); ++i) {
    EXPECT_GE(both.op_start_ms[i], 0) << i;
    EXPECT_LT(both.op_start_ms[i], both.op_end_ms[i]) << i;
    EXPECT_LE(both.op_end_ms[i], longest_step_ms + 0.5) << i;
  }
  // Dependencies and the in-order streams hold on the timeline: fwd.u0 after ag.u0, ag.u1 after
  // ag.u0 on the comm stream, fwd.u1 after both fwd.u0 and ag.u1, rs.u0 last of all comm.
  auto after = [&](int later, int earlier) {
    EXPECT_GE(both.op_start_ms[later], both.op_end_ms[earlier]) << later << " vs " << earlier;
  };
  after(1, 0);
  after(2, 0);
  after(3, 1);
  after(3, 2);
  after(7, 5);
  after(7, 6);
  // Not run in a pass: zero.
  const PassResult comm = rig.executor.run_pass(PassKind::comm_only);
  EXPECT_EQ(comm.op_start_ms[1], 0);
  EXPECT_EQ(comm.op_end_ms[1], 0);
}

TEST(Executor, UntilStableStopsAtTheCap) {
  Rig rig(0);
  const PassResult comm = rig.executor.run_pass(PassKind::comm_only);
  EXPECT_GE(comm.step_ms.size(), 3u);
  EXPECT_LE(comm.step_ms.size(), 4u);
  EXPECT_EQ(comm.agreed_step_ms, comm.step_ms);
}

TEST(Executor, ComputeScaleStretchesCompute) {
  Rig rig(3, 512);
  // The fastest step of each pass: load from elsewhere on a small CI machine only slows steps.
  auto fastest_step_ms = [&] {
    const std::vector<double> steps = rig.executor.run_pass(PassKind::compute_only).step_ms;
    return *std::min_element(steps.begin(), steps.end());
  };
  // Interleaved, the fastest of three passes each: a burst of load elsewhere lands on one pass.
  double at_one = 1e300, at_three = 1e300;
  for (int round = 0; round < 3; ++round) {
    rig.executor.set_compute_scale(1);
    at_one = std::min(at_one, fastest_step_ms());
    rig.executor.set_compute_scale(3);
    at_three = std::min(at_three, fastest_step_ms());
  }
  EXPECT_GT(at_three, at_one * 2);
}

TEST(Executor, RejectsForwardDependencies) {
  Schedule s = two_unit_schedule(1 << 20, 8);
  s.ops[1].deps = {3};
  FakeCommunicator world(0);
  GroupComms groups(world, s, 0);
  auto engine = make_blas_engine(1);
  EXPECT_THROW(Executor(s, groups, *engine, {}, [](double v) { return v; }), UsageError);
}

TEST(Executor, IndivisibleCollectiveIsAUsageError) {
  Schedule s = two_unit_schedule(1 << 20, 8);
  std::get<CollectiveOp>(s.ops[0].body).bytes = 3;  // not a whole bf16 element
  FakeCommunicator world(0);
  GroupComms groups(world, s, 0);
  auto engine = make_blas_engine(1);
  EXPECT_THROW(Executor(s, groups, *engine, {}, [](double v) { return v; }), UsageError);
}

}  // namespace
}  // namespace collreplay
