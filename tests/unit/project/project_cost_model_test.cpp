// The cost model's closed forms against hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/measured_points.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

// base 3 us; intra 1 us/hop at 100 GB/s; inter 5 us/hop at 50 GB/s per node; no efficiency curve.
FabricModel hand_model() {
  FabricModel m;
  m.base_us = 3;
  m.intra = TierParams{1, 100, 0, 1};
  m.inter = TierParams{5, 50, 0, 1};
  m.links = 1;
  return m;
}

TEST(ProjectCostModel, EfficiencyCurve) {
  EXPECT_DOUBLE_EQ(efficiency(TierParams{0, 1, 0, 1}, 1000), 1.0);
  EXPECT_DOUBLE_EQ(efficiency(TierParams{0, 1, 4096, 0.7}, 4096), 0.5);
  // (half / m)^gamma = (1/4)^0.5 = 0.5 -> 1 / 1.5
  EXPECT_NEAR(efficiency(TierParams{0, 1, 1024, 0.5}, 4096), 1 / 1.5, 1e-12);
}

TEST(ProjectCostModel, RingAllGatherAcrossNodes) {
  // 16 ranks on 2 nodes, S = 16 MiB: latency 3 + (16-2)*1 + (2-1)*5 = 22 us;
  // every link carries 15/16 S: intra 15 MiB / 100 GB/s, inter 15 MiB / 50 GB/s (the slower).
  const double s = 16 * MiB;
  const Prediction p =
      predict_with(CollKind::all_gather, Algo::ring, s, GroupSpan{16, 2}, hand_model());
  EXPECT_NEAR(p.time_us, 22 + 15 * MiB / 50e3, 1e-9);
  EXPECT_EQ(p.algo, Algo::ring);
  // Reduce-scatter has the same cost; inside one node only NVLink counts.
  EXPECT_NEAR(predict(CollKind::reduce_scatter, s, GroupSpan{16, 2}, hand_model()).time_us,
              p.time_us, 1e-9);
  EXPECT_NEAR(predict(CollKind::all_gather, s, GroupSpan{8, 1}, hand_model()).time_us,
              3 + 7 + 7 * 2 * MiB / 100e3, 1e-9);
}

TEST(ProjectCostModel, PatIsLogarithmicAtOneGpuPerNode) {
  // 8 nodes x 1 GPU: PAT latency 3 + log2(8) * 5 = 18 us against ring 3 + 7 * 5 = 38 us; same
  // bytes.
  const double s = 8 * MiB;
  const FabricModel m = hand_model();
  const double bytes_us = 7 * MiB / 50e3;
  EXPECT_NEAR(predict_with(CollKind::all_gather, Algo::pat, s, GroupSpan{8, 8}, m).time_us,
              18 + bytes_us, 1e-9);
  EXPECT_NEAR(predict_with(CollKind::all_gather, Algo::ring, s, GroupSpan{8, 8}, m).time_us,
              38 + bytes_us, 1e-9);
  EXPECT_EQ(predict(CollKind::all_gather, s, GroupSpan{8, 8}, m).algo, Algo::pat);
  // Not applicable with 2 GPUs per node: the tuner's pick is ring.
  EXPECT_EQ(predict(CollKind::all_gather, s, GroupSpan{16, 8}, m).algo, Algo::ring);
  FabricModel no_pat = m;
  no_pat.pat_allowed = false;
  EXPECT_EQ(predict(CollKind::all_gather, s, GroupSpan{8, 8}, no_pat).algo, Algo::ring);
}

TEST(ProjectCostModel, TreeAndRingAllReduce) {
  // 32 ranks on 4 nodes: tree latency 3 + 2*(7*1 + 2*5) = 37 us, bytes S at the slower tier;
  // ring latency 3 + 2*(28*1 + 3*5) = 89 us, bytes 2 * 31/32 S.
  const double s = 64 * MiB;
  const FabricModel m = hand_model();
  EXPECT_NEAR(predict_with(CollKind::all_reduce, Algo::tree, s, GroupSpan{32, 4}, m).time_us,
              37 + s / 50e3, 1e-9);
  EXPECT_NEAR(predict_with(CollKind::all_reduce, Algo::ring, s, GroupSpan{32, 4}, m).time_us,
              89 + 2 * 31 * 2 * MiB / 50e3, 1e-9);
  EXPECT_EQ(predict(CollKind::all_reduce, s, GroupSpan{32, 4}, m).algo, Algo::tree);
}

TEST(ProjectCostModel, AllToAllSharesTheNodesNics) {
  // 16 ranks on 2 nodes, S = 16 MiB: 1 MiB per peer; 7 peers inside (7 MiB over 100 GB/s), 8
  // outside for each of 8 ranks: 64 MiB through the node's 50 GB/s. Latency 3 + 7*1 + 8*5 = 50 us.
  const Prediction p = predict(CollKind::all_to_all, 16 * MiB, GroupSpan{16, 2}, hand_model());
  EXPECT_EQ(p.algo, Algo::pairwise);
  EXPECT_NEAR(p.time_us, 50 + 64 * MiB / 50e3, 1e-9);
}

TEST(ProjectCostModel, FewerGpusThanNicsUseFewerNics) {
  // 1 GPU per node on an 8-NIC node of 400 GB/s: one NIC, 50 GB/s.
  FabricModel m = hand_model();
  m.inter.bw_gbyte_s = 400;
  m.links = 8;
  m.pat_allowed = false;
  EXPECT_NEAR(predict(CollKind::all_gather, 4 * MiB, GroupSpan{4, 4}, m).time_us,
              3 + 3 * 5 + 3 * MiB / 50e3, 1e-9);
}

TEST(ProjectCostModel, OneRankCostsNothingAndUnevenGroupsAreRefused) {
  EXPECT_EQ(predict(CollKind::all_gather, 1e6, GroupSpan{1, 1}, hand_model()).time_us, 0);
  EXPECT_THROW(predict(CollKind::all_gather, 1e6, GroupSpan{12, 8}, hand_model()), UsageError);
}

TEST(ProjectCostModel, NamesOfNcclAlgorithms) {
  Algo a = Algo::pairwise;
  EXPECT_TRUE(algo_from_name("RING_LL128", a));
  EXPECT_EQ(a, Algo::ring);
  EXPECT_TRUE(algo_from_name("PAT", a));
  EXPECT_EQ(a, Algo::pat);
  EXPECT_TRUE(algo_from_name("Tree/Simple", a));
  EXPECT_EQ(a, Algo::tree);
  EXPECT_FALSE(algo_from_name("CollNetDirect", a));
  EXPECT_EQ(coll_kind_from_name("all_to_allv"), CollKind::all_to_all);
  EXPECT_EQ(coll_kind_from_name("broadcast"), CollKind::broadcast);
  EXPECT_EQ(coll_kind_from_name("sendrecv"), CollKind::point_to_point);
  EXPECT_THROW(coll_kind_from_name("gather"), UsageError);
}

// Where a schedule's groups sit (workloads/plan/parallel/mesh.hpp): HSDP's shard group and TP
// groups inside a node, replica groups across the nodes, FSDP with TP over every node.
TEST(ProjectCostModel, GroupsArePlacedAsTheMeshLaysThemOut) {
  const auto span = [](const char* group, int size, int tp) {
    const GroupSpan s = replay_group_span(group, size, 2, 8, tp);
    return std::make_pair(s.ranks, s.nodes);
  };
  EXPECT_EQ(span("shard", 8, 1), std::make_pair(8, 1));  // hsdp: the node's 8 ranks
  EXPECT_EQ(span("shard", 2, 4), std::make_pair(2, 1));  // tp4+hsdp: every 4th of 8
  EXPECT_EQ(span("shard", 4, 4), std::make_pair(4, 2));  // tp4+fsdp over 16: 2 per node
  EXPECT_EQ(span("tp", 4, 4), std::make_pair(4, 1));
  EXPECT_EQ(span("replicate", 2, 1), std::make_pair(2, 2));
  EXPECT_EQ(span("world", 16, 1), std::make_pair(16, 2));
}

TEST(ProjectCostModel, BroadcastIsARingChainAndPointToPointOneHop) {
  const double s = 16 * MiB;
  // 16 ranks on 2 nodes: 14 intra and 1 inter hop of latency, S through the slower NIC once.
  EXPECT_NEAR(predict(CollKind::broadcast, s, GroupSpan{16, 2}, hand_model()).time_us,
              3 + 14 * 1 + 5 + s / 50e3, 1e-9);
  // A send to a rank of the same node: one NVLink hop; on another node: one NIC hop.
  EXPECT_NEAR(predict(CollKind::point_to_point, s, GroupSpan{2, 1}, hand_model()).time_us,
              3 + 1 + s / 100e3, 1e-9);
  EXPECT_NEAR(predict(CollKind::point_to_point, s, GroupSpan{2, 2}, hand_model()).time_us,
              3 + 5 + s / 50e3, 1e-9);
  EXPECT_EQ(coll_kind_from_name("send"), CollKind::point_to_point);
  EXPECT_EQ(coll_kind_from_name("recv"), CollKind::point_to_point);
  EXPECT_EQ(coll_kind_from_name("send_recv"), CollKind::point_to_point);
  EXPECT_EQ(coll_kind_from_name("broadcast"), CollKind::broadcast);
}

TEST(ProjectCostModel, StridedSpansAndPeerTiers) {
  // 8 GPUs per node: 4 ranks 2 apart stay in a node; 2 ranks 8 apart take two.
  EXPECT_EQ(replay_group_span("strided", 4, 4, 8, 1, 2).nodes, 1);
  EXPECT_EQ(replay_group_span("strided", 2, 4, 8, 1, 8).nodes, 2);
  EXPECT_EQ(replay_group_span("strided", 4, 4, 8, 1, 16).nodes, 4);
  Schedule s;
  s.world = 16;
  s.gpus_per_node = 8;
  s.rank = 3;
  CollectiveOp c;
  c.kind = CollectiveKind::send;
  c.group = GroupKind::strided;
  c.group_size = 2;
  c.group_stride = 8;
  c.peer = 1;  // rank 11: the other node
  EXPECT_EQ(schedule_op_span(s, c, 2, 8).nodes, 2);
  c.group_stride = 1;
  c.group_size = 4;
  c.peer = 0;  // rank 0: this node
  EXPECT_EQ(schedule_op_span(s, c, 2, 8).nodes, 1);
  c.group = GroupKind::world;
  c.peer = 12;
  EXPECT_EQ(schedule_op_span(s, c, 2, 8).nodes, 2);
}

}  // namespace
}  // namespace collreplay::project
