// The line-rate bound of an emulated profile: the least bytes a node's link must carry for each
// op and rank placement, the busbw it allows (counted here by hand from nccl-tests' bus factors),
// and the verdict on a measured time.
#include "bench/app/run/line_rate.hpp"

#include <gtest/gtest.h>

namespace collreplay {
namespace {

const FabricProfile kEth100g{"eth-100g", 100, 10, 1, "one 100 Gbit/s NIC"};  // 12.5 GB/s

// `ranks_per_node` ranks on each of `nodes` hosts, in blocks as mpirun fills slots.
NodeLinks links(int nodes, int ranks_per_node) {
  std::vector<std::string> hosts;
  for (int n = 0; n < nodes; ++n)
    for (int r = 0; r < ranks_per_node; ++r) hosts.push_back("node" + std::to_string(n));
  return *emulated_node_links(kEth100g, true, hosts, 0);
}

CollectiveTraffic world_op(CollectiveKind kind, std::uint64_t bytes, int ranks) {
  CollectiveTraffic op;
  op.kind = kind;
  op.bytes = bytes;
  for (int r = 0; r < ranks; ++r) op.members.push_back(r);
  return op;
}

// The busbw the profile allows for `op` (bus bytes = S x the op's nccl-tests factor).
double max_busbw(const CollectiveTraffic& op, const NodeLinks& l, double bus_factor,
                 RankReduce how = RankReduce::max) {
  const double bus_bytes = static_cast<double>(op.bytes) * bus_factor;
  return judge_line_rate(op, l, how, bus_bytes, 1.0)->max_busbw_GBps;
}

constexpr std::uint64_t S = 64ull << 20;

TEST(LineRate, OneRankPerNodeAllowsTheLinkRateAsBusbw) {
  // nccl-tests' busbw is defined so that, one rank per node, it is what a node's link carries.
  for (int nodes : {2, 4, 8}) {
    const NodeLinks l = links(nodes, 1);
    const double f = (nodes - 1.0) / nodes;
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_gather, S, nodes), l, f), 12.5);
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::reduce_scatter, S, nodes), l, f), 12.5);
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_reduce, S, nodes), l, 2 * f), 12.5);
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_to_all, S, nodes), l, f), 12.5);
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::broadcast, S, nodes), l, 1), 12.5);
    EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::send_recv, S, nodes), l, 1), 12.5);
  }
}

TEST(LineRate, RanksSharingANodeChangeTheBoundAsTheirBytesDo) {
  // 2 nodes x 2 ranks. all_gather: each node must receive the other node's half, S / 2, while the
  // bus bytes are 3/4 S: busbw up to 1.5 x the link. all_to_all: each node's 2 ranks send the
  // other node's 2 ranks 4 blocks of S / 4 (S in all): busbw up to 3/4 x the link. send_recv in
  // a ring of 4: one rank per node sends across, S, as with one rank per node.
  const NodeLinks l = links(2, 2);
  EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_gather, S, 4), l, 0.75), 18.75);
  EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::reduce_scatter, S, 4), l, 0.75), 18.75);
  EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_to_all, S, 4), l, 0.75), 9.375);
  EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::send_recv, S, 4), l, 1), 12.5);
  // all_reduce: 2 (N-1) / N S = S per link, bus bytes 2 x 3/4 S.
  EXPECT_DOUBLE_EQ(max_busbw(world_op(CollectiveKind::all_reduce, S, 4), l, 1.5), 18.75);
}

TEST(LineRate, AllToAllvIsBoundedByItsCountMatrix) {
  // 2 nodes x 1 rank; rank 0 sends rank 1 three times what rank 1 sends back.
  const NodeLinks l = links(2, 1);
  PeerCountMatrix counts{2, {100, 300, 100, 100}};
  CollectiveTraffic op = world_op(CollectiveKind::all_to_allv, 800 * 4, 2);
  op.counts = &counts;
  op.element_bytes = 4;
  // The busiest link carries 300 elements; 1200 bytes at 12.5 GB/s.
  const LineRateVerdict v = *judge_line_rate(op, l, RankReduce::max, 1200, 1200 / 12.5e9 * 1.01);
  EXPECT_FALSE(v.above);
  EXPECT_DOUBLE_EQ(v.max_busbw_GBps, 12.5);
  EXPECT_TRUE(judge_line_rate(op, l, RankReduce::max, 1200, 1200 / 12.5e9 * 0.99)->above);
  op.counts = nullptr;  // without the matrix there is no bound
  EXPECT_FALSE(judge_line_rate(op, l, RankReduce::max, 1200, 1e-9).has_value());
}

TEST(LineRate, TheVerdictIsAboveExactlyWhenTheTimeIsBelowTheLeast) {
  const NodeLinks l = links(2, 1);
  const CollectiveTraffic op = world_op(CollectiveKind::all_gather, S, 2);
  const double least_s = S / 2.0 / 12.5e9, bus_bytes = S / 2.0;
  EXPECT_FALSE(judge_line_rate(op, l, RankReduce::max, bus_bytes, least_s * 1.001)->above);
  EXPECT_TRUE(judge_line_rate(op, l, RankReduce::max, bus_bytes, least_s * 0.999)->above);
  nlohmann::json record;
  write_line_rate(record, *judge_line_rate(op, l, RankReduce::max, bus_bytes, least_s / 2));
  EXPECT_EQ(record["above_line_rate"], true);
  EXPECT_DOUBLE_EQ(record["line_rate_GBps"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(record["line_rate_busbw_GBps"].get<double>(), 12.5);
}

TEST(LineRate, AMeanOrTheFastestRankIsBoundedPerRank) {
  // broadcast from rank 0 on 2 nodes x 2 ranks: rank 1 (the root's node) needs nothing across,
  // ranks 2 and 3 need S each: the fastest rank has no bound, the mean half of S.
  const NodeLinks l = links(2, 2);
  const CollectiveTraffic op = world_op(CollectiveKind::broadcast, S, 4);
  EXPECT_DOUBLE_EQ(*least_link_bytes(op, l, RankReduce::max), S);
  EXPECT_DOUBLE_EQ(*least_link_bytes(op, l, RankReduce::avg), S / 2.0);
  EXPECT_FALSE(judge_line_rate(op, l, RankReduce::min, S, 1e-9).has_value());
  // reduce_scatter: the op as a whole moves S / 2 per node, one rank needs only its S / 4.
  const CollectiveTraffic rs = world_op(CollectiveKind::reduce_scatter, S, 4);
  EXPECT_DOUBLE_EQ(*least_link_bytes(rs, l, RankReduce::max), S / 2.0);
  EXPECT_DOUBLE_EQ(*least_link_bytes(rs, l, RankReduce::min), S / 4.0);
  // -a 0: rank 0's own bytes (the broadcast's root needs nothing across).
  EXPECT_DOUBLE_EQ(*least_link_bytes(rs, l, RankReduce::rank0), S / 4.0);
  EXPECT_FALSE(judge_line_rate(op, l, RankReduce::rank0, S, 1e-9).has_value());
}

TEST(LineRate, NothingBoundsOneNodeARealRunOrTheUnshapedProfile) {
  EXPECT_FALSE(emulated_node_links(kEth100g, true, {"a", "a"}, 0).has_value());
  EXPECT_FALSE(emulated_node_links(kEth100g, false, {"a", "b"}, 0).has_value());
  EXPECT_FALSE(emulated_node_links(std::nullopt, true, {"a", "b"}, 0).has_value());
  EXPECT_FALSE(
      emulated_node_links(FabricProfile{"unshaped", 0, 0, 1, ""}, true, {"a", "b"}, 0).has_value());
  // --emulate-nodes 2 on one host: ranks 0-1 and 2-3 are the nodes.
  const NodeLinks l = *emulated_node_links(kEth100g, true, {"h", "h", "h", "h"}, 2);
  EXPECT_EQ(l.node_of_rank, (std::vector<int>{0, 0, 1, 1}));
  // A group inside one node crosses nothing.
  CollectiveTraffic inside = world_op(CollectiveKind::all_gather, S, 2);
  EXPECT_FALSE(least_link_bytes(inside, l, RankReduce::max).has_value());
}

TEST(LineRate, TheNoteCountsAndNamesTheProfile) {
  EXPECT_EQ(line_rate_note(0, 12, links(2, 1)), "");
  const std::string note = line_rate_note(3, 12, links(2, 1));
  EXPECT_NE(note.find("3 of 12"), std::string::npos) << note;
  EXPECT_NE(note.find("eth-100g"), std::string::npos) << note;
  EXPECT_NE(note.find("12.5 GB/s"), std::string::npos) << note;
  EXPECT_NE(note.find("above_line_rate"), std::string::npos) << note;
}

}  // namespace
}  // namespace collreplay
