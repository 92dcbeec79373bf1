// The mechanisms of bench/project/model/mechanisms.hpp, each against the rule it comes from:
// NCCL 2.28's tuner (ring latency linear in ranks and nodes, Tree's NET hop at one GPU per node,
// intra speed up to two nodes, LL and LL128 caps, the protocol picked by size), the SM share of
// NCCL's CTAs, and the slowest of N ranks at the per-rank spread of the committed 2x H200 replay.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <string>

#include "bench/project/model/mechanisms.hpp"
#include "common/data_files.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

NcclRingShape ring(int ranks, int nodes) {
  NcclRingShape s;
  s.ranks = ranks;
  s.nodes = nodes;
  s.channels = 16;
  s.bw_intra_per_channel_gbyte_s = 20;
  s.bw_inter_per_channel_gbyte_s = 3;
  return s;
}

TEST(ProjectMechanisms, RingLatencyGrowsWithEveryRankAndEveryNode) {
  // baseLat 8.4 + (n - N) x 3.4 (NVLink hop, Simple) + (N - 1) x 14 (NET hop, Simple).
  EXPECT_NEAR(nccl_ring_cost(ring(8, 1), NcclProto::simple).latency_us, 8.4 + 7 * 3.4, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(16, 2), NcclProto::simple).latency_us, 8.4 + 14 * 3.4 + 14,
              1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(128, 16), NcclProto::simple).latency_us,
              8.4 + 112 * 3.4 + 15 * 14, 1e-9);
  // 1024 nodes x 8: tens of ms per all-gather, whatever its size.
  EXPECT_GT(nccl_ring_cost(ring(8192, 1024), NcclProto::simple).latency_us, 38000);
  // All-reduce: twice the steps.
  NcclRingShape ar = ring(16, 2);
  ar.kind = CollKind::all_reduce;
  EXPECT_NEAR(nccl_ring_cost(ar, NcclProto::simple).latency_us, 8.4 + 28 * 3.4 + 2 * 14, 1e-9);
  // The network's own latency counts twice in Simple (send and flush), once in LL.
  NcclRingShape slow = ring(16, 2);
  slow.net_latency_us = 5;
  EXPECT_NEAR(nccl_ring_cost(slow, NcclProto::simple).latency_us, 8.4 + 14 * 3.4 + 24, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(slow, NcclProto::ll).latency_us, 6.6 + 14 * 1.0 + 7.7, 1e-9);
}

TEST(ProjectMechanisms, OneGpuPerNodePaysTreesNetworkHop) {
  EXPECT_NEAR(nccl_ring_cost(ring(4, 4), NcclProto::ll).latency_us, 6.6 + 3 * 5.0, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(8, 4), NcclProto::ll).latency_us, 6.6 + 4 * 1.0 + 3 * 2.7,
              1e-9);
}

TEST(ProjectMechanisms, BandwidthIsIntraUpToTwoNodesThenInter) {
  // Simple: channels x per-channel speed, times n / (n - 1) for all-gather's algorithm bandwidth.
  EXPECT_NEAR(nccl_ring_cost(ring(16, 2), NcclProto::simple).algbw_gbyte_s, 16 * 20 * 16.0 / 15,
              1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(24, 3), NcclProto::simple).algbw_gbyte_s, 16 * 3 * 24.0 / 23,
              1e-9);
  // LL: half the bus bandwidth, capped (Hopper on one node 141 GB/s; across nodes an Intel host
  // 39 GB/s at 2 nodes, 20.4 beyond); LL128: 0.92 of it, at most 36.7 GB/s per channel on Hopper.
  EXPECT_NEAR(nccl_ring_cost(ring(8, 1), NcclProto::ll).algbw_gbyte_s, 141 * 8.0 / 7, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(16, 2), NcclProto::ll).algbw_gbyte_s, 39 * 16.0 / 15, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(24, 3), NcclProto::ll).algbw_gbyte_s, 20.4 * 24.0 / 23, 1e-9);
  EXPECT_NEAR(nccl_ring_cost(ring(8, 1), NcclProto::ll128).algbw_gbyte_s,
              16 * 20 * 0.92 * 8.0 / 7, 1e-9);
}

TEST(ProjectMechanisms, TheTunerPicksLlForSmallAndSimpleForLargeMessages) {
  const NcclRingShape s = ring(64, 8);
  EXPECT_EQ(nccl_ring_pick(s, 4096).proto, NcclProto::ll);
  EXPECT_EQ(nccl_ring_pick(s, 1e9).proto, NcclProto::simple);
  // The pick is never slower than any one protocol.
  for (double bytes : {1e3, 1e5, 1e6, 1e7, 1e8, 1e9})
    for (NcclProto p : {NcclProto::ll, NcclProto::ll128, NcclProto::simple})
      EXPECT_LE(nccl_ring_pick(s, bytes).time_us(bytes), nccl_ring_cost(s, p).time_us(bytes) + 1e-9);
}

TEST(ProjectMechanisms, TheCostModelTakesTheTunersLatencies) {
  FabricModel m;
  m.intra = TierParams{0, 1e9, 0, 1};  // bandwidth out of the way: latency only
  m.inter = TierParams{0, 1e9, 0, 1};
  m.links = 8;
  m.pat_allowed = m.tree_allowed = false;
  const FabricModel tuned = with_nccl_ring_latencies(m, ring(128, 16));
  const Prediction p = predict_with(CollKind::all_gather, Algo::ring, 1e6, {128, 16}, tuned);
  EXPECT_NEAR(p.time_us, nccl_ring_cost(ring(128, 16), NcclProto::simple).latency_us, 0.01);
  EXPECT_DOUBLE_EQ(tuned.intra.bw_gbyte_s, 1e9);  // bandwidths stay the model's
}

TEST(ProjectMechanisms, NcclKernelsHoldOneSmPerChannel) {
  EXPECT_NEAR(nccl_sm_share(16, 132), 16.0 / 132, 1e-12);
  EXPECT_NEAR(nccl_sm_share(32, 108), 32.0 / 108, 1e-12);
  EXPECT_DOUBLE_EQ(nccl_sm_share(0, 132), 0);
  StepTerms terms;
  terms.inter_overhead_ms = 1;
  const StepTerms slowed = with_nccl_sm_share(terms, 24, 132);
  EXPECT_NEAR(slowed.compute_slowdown, 24.0 / 132, 1e-12);
  EXPECT_DOUBLE_EQ(slowed.inter_overhead_ms, 1);
  EXPECT_THROW(nccl_sm_share(4, 0), UsageError);
}

TEST(ProjectMechanisms, SocketsOverIpoibMoveOneStreamPerGpuByDefault) {
  NcclSocketShape s;  // 8 GPUs, 8 x 400 Gbit/s ports, NCCL's defaults: the proxy thread alone
  s.stream_gbit_s = 25.7;
  EXPECT_NEAR(nccl_socket_node_gbit_s(s), 8 * 25.7, 1e-9);
  s.threads = 4;  // NCCL_SOCKET_NTHREADS=4, NCCL_NSOCKS_PERTHREAD=2: 8 streams per GPU
  s.sockets_per_thread = 2;
  EXPECT_NEAR(nccl_socket_node_gbit_s(s), 8 * 8 * 25.7, 1e-9);
  s.stream_gbit_s = 100;  // then the ports bound it
  EXPECT_NEAR(nccl_socket_node_gbit_s(s), 3200, 1e-9);
  s.gpus_per_node = 4;  // 4 GPUs over 8 ports: each GPU's share is 2 ports
  EXPECT_NEAR(nccl_socket_node_gbit_s(s), 3200, 1e-9);
  FabricModel m;
  m.inter.bw_gbyte_s = 40;
  EXPECT_NEAR(with_nccl_socket_bandwidth(m, s).inter.bw_gbyte_s, 400, 1e-9);
  s.stream_gbit_s = 0;
  EXPECT_THROW(nccl_socket_node_gbit_s(s), UsageError);
}

TEST(ProjectMechanisms, TheSlowestOfNRanksGrowsLikeTheExpectedMaximum) {
  NormalMaxima maxima;
  EXPECT_DOUBLE_EQ(slowest_rank_factor(1, 0.05, maxima), 1);
  EXPECT_DOUBLE_EQ(slowest_rank_factor(128, 0, maxima), 1);
  // E[max of 2 standard normals] = 1 / sqrt(pi).
  EXPECT_NEAR(slowest_rank_factor(2, 0.01, maxima), 1 + 0.01 / std::sqrt(std::numbers::pi), 1e-5);
  double last = 1;
  for (int n : {8, 16, 128, 1024}) {
    const double f = slowest_rank_factor(n, 0.01, maxima);
    EXPECT_GT(f, last) << n;
    last = f;
  }
  EXPECT_NEAR(slowest_rank_factor(8, 0.01, maxima), 1.014236, 1e-4);
  // And with the jitter: twice the cv, twice the excess.
  EXPECT_NEAR(slowest_rank_factor(128, 0.02, maxima) - 1,
              2 * (slowest_rank_factor(128, 0.01, maxima) - 1), 1e-12);
}

TEST(ProjectMechanisms, TheStepsComputeFactorIsTheSlowestRankAtTheMeasuredJitter) {
  NormalMaxima maxima;
  const StepTerms nominal;  // the measured cv by default
  EXPECT_DOUBLE_EQ(nominal.rank_jitter_cv, kMeasuredRankJitterCv);
  EXPECT_DOUBLE_EQ(compute_factor(nominal, 1, maxima), 1);
  // The committed 2x H200 replay's 0.88%: E[max] 1.766 at 16 ranks, 2.595 at 128.
  EXPECT_NEAR(compute_factor(nominal, 16, maxima), 1.0155, 0.0002);
  EXPECT_NEAR(compute_factor(nominal, 128, maxima), 1.0228, 0.0002);
  StepTerms scaled;
  scaled.compute_scale = 2;
  EXPECT_NEAR(compute_factor(scaled, 128, maxima), 2 * 1.0228, 0.0004);
  StepTerms off;
  off.rank_jitter_cv = 0;
  EXPECT_DOUBLE_EQ(compute_factor(off, 1024, maxima), 1);
}

// kMeasuredRankJitterCv is what the committed samples give: each rank's compute-only time of every
// op of the 2x H200 replay (step_terms.hpp says how), summed per decoder layer and phase, the two
// ranks' relative difference d per interval, cv = sqrt(mean d^2 / 2).
TEST(ProjectMechanisms, RankJitterIsTheCommittedReplaysPerRankSpread) {
  const std::string path = find_data_file("sweeps/measured/2026-11-23/replay_nvlink.jsonl");
  ASSERT_FALSE(path.empty());
  std::ifstream in(path);
  std::map<std::pair<int, std::string>, std::array<double, 2>> intervals;
  std::set<std::string> devices;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json r = nlohmann::json::parse(line);
    if (r.value("record", "") != "op" || r.value("stream", "") != "compute") continue;
    if (r["layer"].get<int>() < 0) continue;  // the root unit: not a decoder layer's interval
    for (const auto& d : r["run"]["devices"]) devices.insert(d.get<std::string>());
    const nlohmann::json& t = r["compute_only_ms"];
    const int slowest = t["slowest_rank"];
    std::array<double, 2>& sum = intervals[{r["layer"].get<int>(), r["phase"]}];
    sum[slowest] += t["max"].get<double>();
    sum[1 - slowest] += t["min"].get<double>();
  }
  ASSERT_EQ(devices.size(), 2u);  // two GPUs, one rank each
  for (const std::string& d : devices) EXPECT_NE(d.find("H200"), std::string::npos) << d;
  ASSERT_EQ(intervals.size(), 84u);  // 28 layers x forward, recompute, backward
  double sum_squares = 0;
  for (const auto& [key, t] : intervals) {
    const double d = (t[0] - t[1]) / ((t[0] + t[1]) / 2);
    sum_squares += d * d;
  }
  const double cv = std::sqrt(sum_squares / static_cast<double>(intervals.size()) / 2);
  EXPECT_NEAR(kMeasuredRankJitterCv, cv, 0.00005) << cv;
}

FabricModel small_latencies() {
  FabricModel m;
  m.base_us = 5;
  m.intra = {0.5, 150, 0, 1};
  m.inter = {2, 400, 0, 1};  // a profile's wire latency
  m.links = 8;
  return m;
}

TEST(ProjectMechanisms, TheLatencyFloorIsNcclsHopsAcrossNodesOnly) {
  const FabricModel m = small_latencies();
  // One node: the measured intra-node fit stands.
  const FabricModel one = with_nccl_latency_floor(m, CollKind::all_gather, 1e9, {8, 1, 0});
  EXPECT_DOUBLE_EQ(one.intra.alpha_us, 0.5);
  EXPECT_DOUBLE_EQ(one.inter.alpha_us, 2);
  // Two nodes, large: Simple's NET hop (14 us) and 3 x the post overhead on the NVLink hops.
  const FabricModel two = with_nccl_latency_floor(m, CollKind::all_gather, 1e9, {16, 2, 0});
  EXPECT_DOUBLE_EQ(two.inter.alpha_us, 14);
  EXPECT_DOUBLE_EQ(two.intra.alpha_us, 3.4);
  EXPECT_DOUBLE_EQ(two.base_us, 5);
  EXPECT_DOUBLE_EQ(two.inter.bw_gbyte_s, 400);
  // A larger fitted latency is kept: it is a floor.
  FabricModel slow = m;
  slow.inter.alpha_us = 30;
  EXPECT_DOUBLE_EQ(with_nccl_latency_floor(slow, CollKind::all_gather, 1e9, {16, 2, 0}).inter.alpha_us, 30);
  // Not a ring collective: untouched.
  EXPECT_DOUBLE_EQ(with_nccl_latency_floor(m, CollKind::all_to_all, 1e9, {16, 2, 0}).inter.alpha_us, 2);
}

TEST(ProjectMechanisms, TheLatencyFloorFollowsTheProtocolPickedBySize) {
  const FabricModel m = small_latencies();
  // Small: LL (NET hop 2.7 us), large: Simple (14 us).
  const double small = with_nccl_latency_floor(m, CollKind::all_gather, 4096, {16, 2, 0}).inter.alpha_us;
  const double large = with_nccl_latency_floor(m, CollKind::all_gather, 1e9, {16, 2, 0}).inter.alpha_us;
  EXPECT_DOUBLE_EQ(small, 2.7);
  EXPECT_DOUBLE_EQ(large, 14);
}

TEST(ProjectMechanisms, ACollectivesLatencyGrowsWithRanksUnderTheFloor) {
  const FabricModel m = small_latencies();
  NormalMaxima maxima;
  const StepTerms nominal;
  StepTerms off;
  off.nccl_hop_latency = false;
  double last = 0;
  for (int nodes : {2, 16, 128, 1024}) {
    const GroupSpan span{8 * nodes, nodes, 0};
    const double floored = collective_ms(CollKind::all_gather, 1e6, span, m, nominal, maxima);
    EXPECT_GT(floored, last) << nodes;
    EXPECT_GT(floored, collective_ms(CollKind::all_gather, 1e6, span, m, off, maxima)) << nodes;
    last = floored;
  }
  // 8192 ranks of a 1 MB ring: the tuner picks LL there (Simple's 39 ms of latency outweighs LL's
  // lower bandwidth), so 7168 intra hops at the 1 us post overhead and 1023 NET hops at 2.7 us.
  EXPECT_NEAR(last, (5 + 7168 * 1.0 + 1023 * 2.7) / 1e3, 0.05);
}

}  // namespace
}  // namespace collreplay::project
