// Every collective a training loop issues, from small synthetic traces with torch's fields:
// barrier, broadcast, all-reduce on mesh groups, send/recv and batch_isend_irecv, uneven
// all_to_all_single, coalesced launches; and the one-line refusal of what replay cannot replay.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/support/synthetic_trace.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {
namespace {

using test_trace::Builder;
using test_trace::call;
using test_trace::json;

TraceImport imported(const Builder& b) {
  return trace_to_schedule(parse_trace(b.text(), "t.json"), true);
}

std::vector<CollectiveOp> collectives(const Builder& b) {
  std::vector<CollectiveOp> out;
  for (const ScheduleOp& op : imported(b).schedule.ops)
    if (op.is_collective()) out.push_back(op.collective());
  return out;
}

std::string refusal(const Builder& b) {
  try {
    imported(b);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TraceCollectives, BarrierIsAnAllReduceOfOneElement) {
  Builder b(0, 2);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 10, 20, 5,
           call("barrier", 1, 1, "[0, 1]", "Float"));
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, CollectiveKind::all_reduce);
  EXPECT_EQ(c[0].dtype, DType::f32);
  EXPECT_EQ(c[0].bytes, 4u);
  EXPECT_EQ(c[0].group, GroupKind::world);
}

// HSDP (world 4, rank 0): the reduce-scatter on the shard pair, then the all-reduce on the
// replicate pair on a stream of its own that starts the moment the reduce-scatter ends (FSDP2:
// all_reduce_stream.wait_stream(reduce_scatter_stream)): replay waits the same way. A collective
// that starts late on a busy stream of its own waits for that stream, not for another collective.
TEST(TraceCollectives, ACollectiveHeldUntilAnotherEndedWaitsForIt) {
  Builder b(0, 4);
  b.kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 10, 20, 100,
           call("_reduce_scatter_base", 2000, 1000, "[0, 1]"), 1, 25)
      .kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 12, 120, 50,
              call("allreduce", 1000, 1000, "[0, 2]"), 1, 28)
      .kernel("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", 14, 170, 100,
              call("_reduce_scatter_base", 2000, 1000, "[0, 1]"), 1, 25);
  const std::vector<ScheduleOp> ops = imported(b).schedule.ops;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[1].deps, std::vector<int>{0});  // the all-reduce waits for the reduce-scatter
  EXPECT_TRUE(ops[2].deps.empty());             // the next reduce-scatter: its own stream's order
}

TEST(TraceCollectives, BroadcastKeepsItsRoot) {
  Builder b(0, 4);
  json f = call("broadcast", 1000, 1000, "[0, 1, 2, 3]");
  f["Rank"] = 2;  // torch records the root's group rank
  b.kernel("ncclDevKernel_Broadcast_RING_LL", 10, 20, 5, f);
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, CollectiveKind::broadcast);
  EXPECT_EQ(c[0].bytes, 2000u);
  EXPECT_EQ(c[0].root, 2);
}

TEST(TraceCollectives, GroupsOfAMeshAreStrided) {
  Builder b(3, 8);
  b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 10, 20, 5,
           call("allreduce", 64, 64, "[2, 3]"));
  b.kernel("ncclDevKernel_AllGather_RING_LL", 30, 40, 5,
           call("_allgather_base", 16, 64, "[3, 7]"));              // HSDP's replicate group
  json truncated = call("allreduce", 64, 64, "[1, 3, 5, 7, ...]");  // torch cuts long lists
  truncated["Group size"] = 4;
  truncated["Global rank start"] = 1;
  truncated["Global rank stride"] = 2;
  b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 50, 60, 5, truncated);
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(group_label(c[0]), "strided(2,1)");
  EXPECT_EQ(group_label(c[1]), "strided(2,4)");
  EXPECT_EQ(c[1].bytes, 128u);
  EXPECT_EQ(group_label(c[2]), "strided(4,2)");
}

TEST(TraceCollectives, ANonArithmeticGroupIsOneClearError) {
  Builder b(0, 4);
  b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 10, 20, 5,
           call("allreduce", 8, 8, "[0, 1, 3]"));
  const std::string why = refusal(b);
  EXPECT_NE(why.find("process group [0,1,3] of a world of 4"), std::string::npos) << why;
  EXPECT_NE(why.find("at ts 20.000 us"), std::string::npos) << why;
}

TEST(TraceCollectives, SendAndRecvKeepTheirPeer) {
  Builder b(1, 4);
  json send = call("send", 512, 512, "[0, 1, 2, 3]");
  send["Dst Rank"] = 2;
  json recv = call("recv", 256, 256, "[0, 1]");  // a stage pair's own group: the peer's group rank
  recv["Rank"] = 0;
  b.kernel("ncclDevKernel_SendRecv", 10, 20, 5, send)
      .kernel("ncclDevKernel_SendRecv", 30, 40, 5, recv);
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, CollectiveKind::send);
  EXPECT_EQ(c[0].peer, 2);
  EXPECT_EQ(c[0].bytes, 1024u);
  EXPECT_EQ(c[1].kind, CollectiveKind::recv);
  EXPECT_EQ(c[1].peer, 0);
  EXPECT_EQ(group_label(c[1]), "strided(2,1)");
}

TEST(TraceCollectives, BatchedP2pIsOneOpPerCallInOrder) {
  Builder b(1, 2);
  json send = call("send", 100, 100, "[0, 1]"), recv = call("recv", 300, 300, "[0, 1]");
  send["Dst Rank"] = 0;
  recv["Src Rank"] = 0;
  b.comms(5, send).comms(6, recv);  // batch_isend_irecv: each call recorded, one launch
  b.kernel("ncclDevKernel_SendRecv", 10, 20, 8, recv);
  const TraceImport in = imported(b);
  ASSERT_EQ(in.schedule.ops.size(), 2u);
  EXPECT_EQ(in.schedule.ops[0].collective().kind, CollectiveKind::send);
  EXPECT_EQ(in.schedule.ops[0].collective().bytes, 200u);
  EXPECT_EQ(in.schedule.ops[1].collective().kind, CollectiveKind::recv);
  EXPECT_EQ(in.schedule.ops[1].collective().bytes, 600u);
  EXPECT_DOUBLE_EQ(in.traced_us[0] + in.traced_us[1], 8);  // the kernel's time, shared by bytes
  EXPECT_DOUBLE_EQ(in.traced_us[0], 2);
}

TEST(TraceCollectives, CoalescedCollectivesAreTheirCalls) {
  Builder b(0, 2);
  b.comms(5, call("_allgather_base", 10, 20, "[0, 1]"))
      .comms(6, call("_allgather_base", 30, 60, "[0, 1]"));
  b.kernel("ncclDevKernel_AllGather_RING_LL", 10, 20, 5,
           call("all_gather_into_tensor_coalesced", 40, 80, "[0, 1]"));
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].bytes, 40u);
  EXPECT_EQ(c[1].bytes, 120u);
}

TEST(TraceCollectives, UnevenAllToAllKeepsItsSplits) {
  Builder b(0, 2);
  json f = call("all_to_allv", 32, 32, "[0, 1]");  // rows of 8 elements
  f["In split size"] = "[1, 3]";
  f["Out split size"] = "[2, 2]";
  b.kernel("ncclDevKernel_SendRecv", 10, 20, 5, f);
  b.kernel("ncclDevKernel_SendRecv", 30, 40, 5, call("all_to_all", 32, 32, "[0, 1]"));
  const auto c = collectives(b);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].kind, CollectiveKind::all_to_allv);
  EXPECT_EQ(c[0].send_counts, (std::vector<std::uint64_t>{8, 24}));
  EXPECT_EQ(c[0].recv_counts, (std::vector<std::uint64_t>{16, 16}));
  EXPECT_EQ(c[0].bytes, 64u);
  EXPECT_EQ(c[1].kind, CollectiveKind::all_to_all);
  EXPECT_EQ(c[1].bytes, 64u);
}

TEST(TraceCollectives, WhatReplayCannotReplayIsOneLineWithItsTimestamp) {
  Builder b(0, 2);
  b.kernel("ncclDevKernel_Reduce_Sum_bf16_RING_LL", 10, 1234.5, 5, call("reduce", 8, 8, "[0, 1]"));
  const std::string why = refusal(b);
  EXPECT_NE(why.find("collective 'reduce'"), std::string::npos) << why;
  EXPECT_NE(why.find("at ts 1234.500 us"), std::string::npos) << why;
  EXPECT_NE(why.find("--trace-step"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

}  // namespace
}  // namespace collreplay::trace
