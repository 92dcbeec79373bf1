// nccl-tests size math, bus factors and buffer layouts of every op spec.
#include <gtest/gtest.h>

#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

TEST(SizeMath, CountsFollowNcclTests) {
  // 1 MiB of fp32 over 8 ranks: 32768 elements per rank for the sharded ops, 262144 for
  // all_reduce (nccl-tests prints the same counts).
  for (const char* name : {"all_gather", "reduce_scatter", "all_to_all", "all_to_allv"}) {
    const OpSpec& op = find_op(name);
    EXPECT_EQ(op.count_for_bytes(1 << 20, DType::f32, 8), 32768u) << name;
    EXPECT_EQ(op.bytes_for_count(32768, DType::f32, 8), 1u << 20) << name;
    EXPECT_EQ(op.count_for_bytes(1000, DType::bf16, 3), 166u) << name;  // rounded down
  }
  EXPECT_EQ(find_op("all_reduce").count_for_bytes(1 << 20, DType::f32, 8), 262144u);
  EXPECT_EQ(find_op("all_reduce").bytes_for_count(262144, DType::bf16, 8), 524288u);
}

TEST(SizeMath, BusFactors) {
  EXPECT_DOUBLE_EQ(find_op("all_gather").bus_factor(8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(find_op("reduce_scatter").bus_factor(2), 0.5);
  EXPECT_DOUBLE_EQ(find_op("all_to_all").bus_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(find_op("all_to_allv").bus_factor(4), 0.75);
  EXPECT_DOUBLE_EQ(find_op("all_reduce").bus_factor(8), 1.75);
  EXPECT_DOUBLE_EQ(find_op("all_reduce").bus_factor(1), 0.0);
}

TEST(SizeMath, BusBytesOfSkewedAllToAllvAreTheBusiestRanks) {
  const OpSpec& a2av = find_op("all_to_allv");
  const std::uint64_t bytes = a2av.bytes_for_count(1000, DType::f32, 4);
  OpParams uniform;
  EXPECT_DOUBLE_EQ(a2av.bus_bytes(bytes, a2av.layout(1000, 4, 0, uniform), DType::f32),
                   bytes * 0.75);  // all_to_all's rule when nothing is skewed
  OpParams hot;
  hot.skew = parse_skew("hotspot:1");
  hot.seed = 5;
  const OpLayout l = a2av.layout(1000, 4, 0, hot);
  // The busiest rank, counted by hand from the matrix: max over ranks of what it sends to or
  // receives from the others.
  std::size_t busiest = 0;
  for (int r = 0; r < 4; ++r) {
    std::size_t sent = 0, received = 0;
    for (int peer = 0; peer < 4; ++peer)
      if (peer != r) sent += l.peers->at(r, peer), received += l.peers->at(peer, r);
    busiest = std::max({busiest, sent, received});
  }
  const double bus_bytes = a2av.bus_bytes(bytes, l, DType::f32);
  EXPECT_DOUBLE_EQ(bus_bytes, busiest * 4.0);
  EXPECT_GT(bus_bytes, bytes * 0.75 * 1.3);  // the hot rank receives far more than its share
  // The same on every rank: it is a property of the matrix, not of the rank asking.
  EXPECT_DOUBLE_EQ(a2av.bus_bytes(bytes, a2av.layout(1000, 4, 3, hot), DType::f32), bus_bytes);
  EXPECT_DOUBLE_EQ(
      find_op("all_reduce")
          .bus_bytes(4000, find_op("all_reduce").layout(1000, 4, 0, uniform), DType::f32),
      4000 * 1.5);
}

// A replay's all_to_allv layout holds only this rank's counts: its bus bytes are this rank's
// traffic to and from the others (the replay takes the largest over ranks), and the largest
// over the ranks' own layouts is what the matrix gives.
TEST(SizeMath, BusBytesFromOneRanksCountsAreThatRanks) {
  const OpSpec& a2av = find_op("all_to_allv");
  OpParams hot;
  hot.skew = parse_skew("hotspot:1");
  hot.seed = 5;
  const std::uint64_t bytes = a2av.bytes_for_count(1000, DType::f32, 4);
  double largest = 0;
  for (int rank = 0; rank < 4; ++rank) {
    OpLayout own = a2av.layout(1000, 4, rank, hot);
    own.peers = nullptr;
    std::size_t sent = 0, received = 0;
    for (int peer = 0; peer < 4; ++peer)
      if (peer != rank) sent += own.send_counts[peer], received += own.recv_counts[peer];
    const double bus_bytes = a2av.bus_bytes(bytes, own, DType::f32);
    EXPECT_DOUBLE_EQ(bus_bytes, std::max(sent, received) * 4.0) << rank;
    largest = std::max(largest, bus_bytes);
  }
  EXPECT_DOUBLE_EQ(largest, a2av.bus_bytes(bytes, a2av.layout(1000, 4, 0, hot), DType::f32));
  OpLayout sized_only;
  sized_only.ranks = 4;
  EXPECT_DOUBLE_EQ(a2av.bus_bytes(bytes, sized_only, DType::f32), bytes * 0.75)
      << "no counts at all: the size rule";
}

// The one bandwidth rule: GB/s of S and of the bus bytes over the time; nothing for no time.
TEST(SizeMath, BandwidthsAreBytesOverTime) {
  EXPECT_DOUBLE_EQ(algbw_GBps(2e9, 0.5), 4.0);
  EXPECT_DOUBLE_EQ(busbw_GBps(1.5e9, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(busbw_GBps(1.5e9, 0), 0.0);
}

TEST(SizeMath, InPlaceLayoutsUseNcclConventions) {
  const OpParams params;
  const OpLayout ag = find_op("all_gather").layout(10, 4, 2, params);
  EXPECT_EQ(ag.send_elements, 10u);
  EXPECT_EQ(ag.recv_elements, 40u);
  EXPECT_EQ(ag.in_place_send_offset, 20u);  // this rank's slice of the output
  const OpLayout rs = find_op("reduce_scatter").layout(10, 4, 3, params);
  EXPECT_EQ(rs.send_elements, 40u);
  EXPECT_EQ(rs.recv_elements, 10u);
  EXPECT_EQ(rs.in_place_recv_offset, 30u);  // result in this rank's slice of the input
  const OpLayout ar = find_op("all_reduce").layout(10, 4, 1, params);
  EXPECT_EQ(ar.in_place_elements, 10u);
  EXPECT_FALSE(find_op("all_to_allv").supports_in_place());
}

TEST(SizeMath, ScheduleSizesMustDivide) {
  // 3 ranks of bf16: per-rank ops need multiples of 6 bytes, all_reduce of 2.
  EXPECT_TRUE(size_divides(size_basis(CollectiveKind::all_gather), 12, 2, 3));
  EXPECT_FALSE(size_divides(size_basis(CollectiveKind::reduce_scatter), 14, 2, 3));
  EXPECT_TRUE(size_divides(size_basis(CollectiveKind::all_reduce), 14, 2, 3));
  EXPECT_FALSE(size_divides(size_basis(CollectiveKind::all_reduce), 15, 2, 3));
}

TEST(SizeMath, ReductionsAreTheOpsOwn) {
  EXPECT_EQ(find_op("all_gather").reduction(), "none");
  EXPECT_EQ(find_op("all_to_all").reduction(), "none");
  EXPECT_EQ(find_op("all_to_allv").reduction(), "none");
  EXPECT_EQ(find_op("reduce_scatter").reduction(), "sum");
  EXPECT_EQ(find_op("all_reduce").reduction(), "sum");
}

TEST(Registry, KnowsAliasesAndRejectsUnknown) {
  EXPECT_EQ(find_op("alltoall").name(), "all_to_all");
  EXPECT_EQ(find_op("alltoallv").name(), "all_to_allv");
  EXPECT_EQ(find_op("reducescatter").name(), "reduce_scatter");
  EXPECT_EQ(find_op("sendrecv").name(), "send_recv");
  EXPECT_EQ(all_ops().size(), 9u);
  EXPECT_THROW(find_op("bcast"), UsageError);
  EXPECT_THROW(find_op("all_gath"), UsageError);
}

TEST(Registry, EveryKindHasItsOwnSpec) {
  const std::vector<CollectiveKind> kinds = collective_kinds();
  EXPECT_EQ(kinds.size(), all_ops().size());
  for (CollectiveKind kind : kinds) {
    EXPECT_EQ(op_spec(kind).kind(), kind);
    EXPECT_EQ(&find_op(collective_kind_name(kind)), &op_spec(kind));
  }
  EXPECT_EQ(collective_kind_name(CollectiveKind::all_to_allv), "all_to_allv");
}

// The facts that once sat in switches outside the specs: point-to-point, root, cost class.
TEST(Registry, SpecsSayWhichArePointToPointAndRooted) {
  EXPECT_EQ(kCollectiveKindCount, all_ops().size());
  for (CollectiveKind kind : collective_kinds()) {
    const bool p2p = kind == CollectiveKind::send || kind == CollectiveKind::recv ||
                     kind == CollectiveKind::send_recv;
    EXPECT_EQ(is_point_to_point(kind), p2p) << collective_kind_name(kind);
    EXPECT_EQ(op_spec(kind).has_root(), kind == CollectiveKind::broadcast);
    if (!p2p) {
      EXPECT_THROW(op_spec(kind).p2p_calls(OpLayout{}, nullptr, nullptr, DType::bf16),
                   RuntimeError);
    }
  }
  EXPECT_EQ(find_op("all_to_allv").cost_class(), "all_to_all");
  EXPECT_EQ(find_op("send_recv").cost_class(), "point_to_point");
  OpLayout l = find_op("send_recv").layout(4, 3, 0, OpParams{});
  const auto calls = find_op("send_recv").p2p_calls(l, nullptr, nullptr, DType::bf16);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].peer, 1);
  EXPECT_EQ(calls[1].peer, 2);
}

}  // namespace
}  // namespace collreplay
