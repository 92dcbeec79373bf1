// broadcast, point-to-point groups and strided sub-communicators on the host MPI backend, with
// exact data checks (any rank count: 1, 2, 4, ...).
#include <gtest/gtest.h>

#include <vector>

#include "bench/executor/group_comms.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/values/fill_pattern.hpp"
#include "collectives/ops/op_registry.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

BackendOptions test_options() {
  BackendOptions options;
  options.timeout_seconds = 30;  // a bug fails the test instead of hanging the suite
  return options;
}

std::uint64_t wrong_on_any_rank(std::uint64_t wrong) {
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return wrong;
}

std::vector<float> pattern(int rank, std::size_t count) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = static_cast<float>(fill_value(7, rank, i));
  return v;
}

TEST(MpiBroadcast, FromTheLastRankInAndOutOfPlace) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int root = comm.size() - 1;  // not 0 once there are two ranks
  const std::size_t count = 1000;
  const std::vector<float> expected = pattern(root, count);
  std::vector<float> send = pattern(comm.rank(), count), recv(count, -5.0f);
  comm.broadcast(send.data(), recv.data(), count, DType::f32, root);
  comm.wait_all("broadcast");
  EXPECT_EQ(wrong_on_any_rank(recv == expected ? 0 : 1), 0u);
  std::vector<float> in_place = pattern(comm.rank(), count);
  comm.broadcast(in_place.data(), in_place.data(), count, DType::f32, root);
  comm.wait_all("in-place broadcast");
  EXPECT_EQ(wrong_on_any_rank(in_place == expected ? 0 : 1), 0u);
  EXPECT_THROW(comm.broadcast(send.data(), recv.data(), count, DType::f32, comm.size()),
               UsageError);
}

// Both ranks of every pair list their send first: in one p2p group that cannot deadlock.
TEST(MpiP2pGroup, EveryRankSendsFirstAndReceivesFromBothNeighbours) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int n = comm.size(), me = comm.rank();
  const int next = (me + 1) % n, previous = (me - 1 + n) % n;
  const std::size_t count = 4099;  // large enough not to fit an eager message in bf16 either
  const std::vector<float> send = pattern(me, count);
  std::vector<float> from_previous(count, -5.0f), from_next(count, -5.0f);
  const P2pCall calls[] = {P2pCall::send(send.data(), count, DType::f32, next),
                           P2pCall::send(send.data(), count, DType::f32, previous),
                           P2pCall::recv(from_previous.data(), count, DType::f32, previous),
                           P2pCall::recv(from_next.data(), count, DType::f32, next)};
  comm.p2p_group(calls);
  comm.wait_all("p2p group");
  const bool right = from_previous == pattern(previous, count) && from_next == pattern(next, count);
  EXPECT_EQ(wrong_on_any_rank(right ? 0 : 1), 0u);
  const P2pCall bad[] = {P2pCall::send(send.data(), count, DType::f32, n)};
  EXPECT_THROW(comm.p2p_group(bad), UsageError);
}

// Single sends and receives: even ranks send to the odd rank after them.
TEST(MpiP2pGroup, SingleSendMeetsSingleRecv) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const int me = comm.rank();
  const std::size_t count = 300;
  std::vector<float> data = pattern(me, count);
  bool right = true;
  if (me % 2 == 0 && me + 1 < comm.size()) {
    comm.send(data.data(), count, DType::f32, me + 1);
  } else if (me % 2 == 1) {
    comm.recv(data.data(), count, DType::f32, me - 1);
    comm.wait_all("recv");
    right = data == pattern(me - 1, count);
  }
  comm.wait_all("send");
  EXPECT_EQ(wrong_on_any_rank(right ? 0 : 1), 0u);
}

TEST(MpiSendRecvSpec, RingIsExactInEveryDtype) {
  MpiCommunicator comm(MPI_COMM_WORLD, test_options());
  const OpSpec& op = find_op("sendrecv");
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    OpParams params;
    params.seed = 5;
    const OpLayout l = op.layout(777, comm.size(), comm.rank(), params);
    std::vector<unsigned char> send(l.send_elements * dtype_size_bytes(t));
    std::vector<unsigned char> recv(l.recv_elements * dtype_size_bytes(t));
    fill_send_buffer(op, l, Placement::out_of_place, t, params.seed, send.data());
    poison_recv_buffer(l, t, recv.data());
    op.issue(comm, l, send.data(), recv.data(), t);
    comm.wait_all("send_recv");
    EXPECT_EQ(
        wrong_on_any_rank(count_wrong(op, l, Placement::out_of_place, t, params.seed, recv.data())),
        0u)
        << dtype_name(t);
  }
}

Schedule strided_schedule(int world, std::vector<std::pair<int, int>> shapes) {
  Schedule s;
  s.world = world;
  for (const auto& [size, stride] : shapes) {
    ScheduleOp op;
    op.name = "ar.strided" + std::to_string(size) + "x" + std::to_string(stride);
    CollectiveOp c;
    c.kind = CollectiveKind::all_reduce;
    c.group = GroupKind::strided;
    c.group_size = size;
    c.group_stride = stride;
    c.bytes = 4;
    op.body = c;
    s.ops.push_back(op);
  }
  return s;
}

// Every (size, stride) that tiles the world: the sum of the members' world ranks matches the
// formula's members, and the group rank is (r / stride) % size.
TEST(MpiStridedGroups, SplitIntoTheFormulasMembers) {
  MpiCommunicator world(MPI_COMM_WORLD, test_options());
  const int n = world.size(), me = world.rank();
  std::vector<std::pair<int, int>> shapes;
  for (int size = 1; size <= n; ++size)
    for (int stride = 1; size * stride <= n; ++stride)
      if (n % (size * stride) == 0) shapes.emplace_back(size, stride);
  const Schedule s = strided_schedule(n, shapes);
  const AgreeMax agree = [](double v) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
  };
  const GroupComms groups(world, s, 0, agree);
  for (const auto& [size, stride] : shapes) {
    const StridedGroup g{size, stride};
    Communicator& comm = groups.get(GroupKey{GroupKind::strided, size, stride});
    ASSERT_EQ(comm.size(), size);
    EXPECT_EQ(comm.rank(), g.group_rank(me)) << size << "x" << stride;
    float rank_sum = static_cast<float>(me);
    comm.all_reduce(&rank_sum, &rank_sum, 1, DType::f32);
    comm.wait_all("strided all_reduce");
    float expected = 0;
    for (int i = 0; i < size; ++i) expected += static_cast<float>(g.member(me, i));
    EXPECT_EQ(rank_sum, expected) << size << "x" << stride;
  }
}

TEST(MpiStridedGroups, RanksThatDisagreeOnTheGroupsFailOnEveryRank) {
  MpiCommunicator world(MPI_COMM_WORLD, test_options());
  if (world.size() < 2) GTEST_SKIP() << "needs two ranks";
  const Schedule s = strided_schedule(world.size(), {{world.rank() == 0 ? 1 : world.size(), 1}});
  const AgreeMax agree = [](double v) {
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
  };
  EXPECT_THROW(GroupComms(world, s, 0, agree), UsageError);
}

}  // namespace
}  // namespace collreplay
