// MoE routing: deterministic for a seed, rows conserved, capacity and replication rules.
#include <gtest/gtest.h>

#include <numeric>

#include "common/errors.hpp"
#include "workloads/plan/moe_routing.hpp"

namespace collreplay {
namespace {

RoutingInput input(const std::string& routing, std::uint64_t tokens, std::uint64_t seed = 7) {
  return RoutingInput{parse_routing(routing), seed, 3, 8, 2, tokens};
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

TEST(WorkloadsRouting, DeterministicPerSeed) {
  const std::vector<int> ranks = {0, 1, 2, 3};
  for (const std::string r : {"uniform", "zipf:1.2", "hot:2"}) {
    EXPECT_EQ(route_rows(input(r, 3000), ranks), route_rows(input(r, 3000), ranks)) << r;
    EXPECT_NE(route_rows(input(r, 3000, 1), ranks), route_rows(input(r, 3000, 2), ranks)) << r;
  }
}

TEST(WorkloadsRouting, RowsConservedAndTopKDistinct) {
  for (const std::string r : {"uniform", "zipf:1.5", "hot:1"})
    for (std::uint64_t tokens : {1ull, 999ull, 4096ull, 100000ull}) {
      const auto rows = route_rows(input(r, tokens), {0, 1, 2});
      for (const auto& src : rows) {
        EXPECT_EQ(sum(src), tokens * 2) << r << " " << tokens;
        for (auto n : src) EXPECT_LE(n, tokens);  // an expert sees a token at most once
      }
    }
}

TEST(WorkloadsRouting, SkewedRoutingIsSkewed) {
  const auto rows = route_rows(input("hot:1", 4096), {0})[0];
  EXPECT_GT(*std::max_element(rows.begin(), rows.end()), 2u * 4096 / 8 * 3);
}

TEST(WorkloadsRouting, DispatchMatrixIsConsistentAcrossRanks) {
  // What rank a sends to rank b is what b receives from a.
  const RoutingInput in = input("zipf:1.0", 2048);
  std::vector<MoeLayerTraffic> t;
  for (int r = 0; r < 4; ++r) t.push_back(moe_layer_traffic(in, {4, r, 0, false, 0}));
  for (int a = 0; a < 4; ++a) {
    EXPECT_EQ(sum(t[a].send_rows), 2u * 2048);
    for (int b = 0; b < 4; ++b) EXPECT_EQ(t[a].send_rows[b], t[b].recv_rows[a]);
  }
}

TEST(WorkloadsRouting, CapacityPaddingFixesSizes) {
  const RoutingInput in = input("hot:1", 1000);
  const MoeLayerTraffic t = moe_layer_traffic(in, {4, 1, 1.25, true, 0});
  EXPECT_EQ(t.capacity_rows, 313u);  // ceil(1.25 * 1000 * 2 / 8)
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(t.send_rows[p], 2u * 313);
    EXPECT_EQ(t.recv_rows[p], 2u * 313);
  }
  const MoeLayerTraffic dropped = moe_layer_traffic(in, {4, 1, 1.0, false, 0});
  EXPECT_LT(sum(dropped.send_rows), 2000u);  // the hot expert's overflow is dropped
}

TEST(WorkloadsRouting, ReplicatedExpertsKeepRowsLocal) {
  const RoutingInput in = input("hot:1", 2048);
  const MoeLayerTraffic plain = moe_layer_traffic(in, {8, 0, 0, false, 0});
  const MoeLayerTraffic rep = moe_layer_traffic(in, {8, 0, 0, false, 1});
  ASSERT_EQ(rep.replicated.size(), 1u);
  EXPECT_EQ(sum(rep.send_rows), sum(plain.send_rows));
  EXPECT_GT(rep.send_rows[0], plain.send_rows[0]);
  EXPECT_EQ(rep.expert_rows[rep.replicated[0]],
            route_rows(in, {0, 1, 2, 3, 4, 5, 6, 7})[0][rep.replicated[0]]);
}

TEST(WorkloadsRouting, BadSpecs) {
  EXPECT_THROW(parse_routing("gauss"), UsageError);
  EXPECT_THROW(parse_routing("zipf:"), UsageError);
  EXPECT_THROW(parse_routing("hot:0"), UsageError);
  EXPECT_THROW(parse_routing("hot:1.5"), UsageError);
}

}  // namespace
}  // namespace collreplay
