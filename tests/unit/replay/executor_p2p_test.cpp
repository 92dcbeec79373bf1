// The executor's p2p groups (consecutive send / recv ops issued together, each with its own
// buffer part, timed as the group) and strided groups, on the fake communicator.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/footprint.hpp"
#include "common/errors.hpp"
#include "tests/unit/replay/fake_communicator.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"

namespace collreplay {
namespace {

using testing::comm_op;
using testing::compute_op;
using testing::FakeCommunicator;

constexpr std::uint64_t kMiB = 1 << 20;

ScheduleOp p2p(const std::string& name, CollectiveKind kind, std::uint64_t bytes,
               std::vector<int> deps = {}) {
  ScheduleOp op = comm_op(name, "stage", kind, bytes, std::move(deps), -1);
  std::get<CollectiveOp>(op.body).peer = 0;
  return op;
}

//   0 recv  1 compute  2 send  3 recv  (one group: the compute runs on its own stream)
//   4 all_reduce (ends it)   5 send   6 recv after 5 (waits for an op of the group: a new one)
Schedule pipeline_schedule() {
  Schedule s;
  s.model = s.plan = s.wrap = "test";
  s.world = 1;
  s.ops = {p2p("recv.a", CollectiveKind::recv, kMiB),
           compute_op("compute", "stage", 8, {}),
           p2p("send.b", CollectiveKind::send, kMiB),
           p2p("recv.c", CollectiveKind::recv, kMiB),
           comm_op("ar", "stage", CollectiveKind::all_reduce, kMiB, {}, -1),
           p2p("send.d", CollectiveKind::send, kMiB / 2),
           p2p("recv.e", CollectiveKind::recv, kMiB / 2, {5})};
  return s;
}

struct Rig {
  explicit Rig(const Schedule& s)
      : schedule(s),
        world(5, &log),
        groups(world, schedule, 0),
        engine(make_blas_engine(1)),
        executor(schedule, groups, *engine, options(), [](double v) { return v; }) {}
  static ExecutorOptions options() {
    ExecutorOptions o;
    o.steps = 2;
    o.warmup_steps = 0;
    return o;
  }
  std::vector<std::string> log;
  Schedule schedule;
  FakeCommunicator world;
  GroupComms groups;
  std::unique_ptr<ComputeEngine> engine;
  Executor executor;
};

TEST(ExecutorP2p, ConsecutiveSendsAndRecvsAreOneGroup) {
  Rig rig(pipeline_schedule());
  EXPECT_EQ(rig.executor.issued_with(0), (std::vector<int>{0, 2, 3}));
  EXPECT_TRUE(rig.executor.issued_with(2).empty());  // goes with op 0
  EXPECT_TRUE(rig.executor.issued_with(1).empty());  // compute
  EXPECT_EQ(rig.executor.issued_with(4), (std::vector<int>{4}));
  EXPECT_EQ(rig.executor.issued_with(5), (std::vector<int>{5}));
  EXPECT_EQ(rig.executor.issued_with(6), (std::vector<int>{6}));
  // Two receives of one group get their own parts: 2 MiB of receive buffer, 1 MiB of send.
  EXPECT_EQ(rig.executor.prepared(3)->recv_offset_bytes, kMiB);
  EXPECT_EQ(rig.executor.prepared(0)->recv_offset_bytes, 0u);
  EXPECT_EQ(rig.executor.collective_buffer_bytes(), 3 * kMiB);
  EXPECT_EQ(estimate_footprint(rig.schedule, false, false).collective_bytes, 3 * kMiB);
}

TEST(ExecutorP2p, CommOnlyPassTimesEveryMemberAsItsGroup) {
  Rig rig(pipeline_schedule());
  const PassResult comm = rig.executor.run_pass(PassKind::comm_only);
  EXPECT_EQ(std::count(rig.log.begin(), rig.log.end(), "p2p group of 3 on world"), 2);
  EXPECT_EQ(std::count(rig.log.begin(), rig.log.end(), "p2p group of 1 on world"), 4);
  EXPECT_GT(comm.op_ms[0], 0);
  EXPECT_EQ(comm.op_ms[0], comm.op_ms[2]);
  EXPECT_EQ(comm.op_ms[0], comm.op_ms[3]);
  EXPECT_EQ(comm.op_ms[1], 0);  // compute: not in this pass
  const PassResult both = rig.executor.run_pass(PassKind::overlapped);
  EXPECT_GT(both.op_ms[6], 0);
}

TEST(ExecutorP2p, StridedGroupsGetTheirOwnCommunicator) {
  Schedule s = pipeline_schedule();
  for (int op : {4, 5, 6}) {
    CollectiveOp& c = std::get<CollectiveOp>(s.ops[static_cast<std::size_t>(op)].body);
    c.group = GroupKind::strided;
    c.group_size = 1;
    c.group_stride = 1;
  }
  Rig rig(s);
  EXPECT_EQ(rig.groups.keys().size(), 2u);  // world and strided(1,1)
  EXPECT_EQ(rig.executor.prepared(4)->key, (GroupKey{GroupKind::strided, 1, 1}));
  rig.executor.run_pass(PassKind::comm_only);
  EXPECT_GT(std::count(rig.log.begin(), rig.log.end(), "p2p group of 1 on group 0"), 0);
  // A strided shape that does not tile the world is refused before any split.
  std::get<CollectiveOp>(s.ops[4].body).group_size = 3;
  FakeCommunicator world(0);
  EXPECT_THROW(GroupComms(world, s, 0), UsageError);
}

TEST(ExecutorP2p, PeerOutsideTheGroupIsAUsageError) {
  Schedule s = pipeline_schedule();
  std::get<CollectiveOp>(s.ops[2].body).peer = 1;  // a group of one rank
  FakeCommunicator world(0);
  GroupComms groups(world, s, 0);
  auto engine = make_blas_engine(1);
  EXPECT_THROW(Executor(s, groups, *engine, {}, [](double v) { return v; }), UsageError);
}

}  // namespace
}  // namespace collreplay
