// The all_to_allv skew matrix: parsing, determinism, conservation, shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "collectives/values/peer_counts.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

std::size_t row_sum(const PeerCountMatrix& m, int src) {
  std::size_t sum = 0;
  for (int d = 0; d < m.ranks; ++d) sum += m.at(src, d);
  return sum;
}

TEST(PeerCounts, ParsesSkews) {
  EXPECT_EQ(parse_skew("uniform").kind, Skew::Kind::uniform);
  EXPECT_DOUBLE_EQ(parse_skew("zipf:1.5").zipf_exponent, 1.5);
  EXPECT_EQ(parse_skew("hotspot:2").hot_peers, 2);
  EXPECT_EQ(skew_name(parse_skew("zipf:1.5")), "zipf:1.5");
  for (const char* bad :
       {"", "zipf", "zipf:", "zipf:-1", "hot:2", "hotspot:0", "hotspot:x", "cold:1", "uniform:1"})
    EXPECT_THROW(parse_skew(bad), UsageError) << bad;
}

TEST(PeerCounts, UniformIsAllToAll) {
  const PeerCountMatrix m = make_peer_counts(Skew{}, 7, 4, 100);
  for (std::size_t c : m.counts) EXPECT_EQ(c, 100u);
}

TEST(PeerCounts, DeterministicAndConserving) {
  for (const char* text : {"zipf:1.2", "hotspot:1", "hotspot:3", "zipf:0.5"}) {
    const Skew skew = parse_skew(text);
    for (int ranks : {1, 2, 5, 8}) {
      const PeerCountMatrix a = make_peer_counts(skew, 42, ranks, 1001);
      const PeerCountMatrix b = make_peer_counts(skew, 42, ranks, 1001);
      EXPECT_EQ(a.counts, b.counts) << text;
      for (int src = 0; src < ranks; ++src)
        EXPECT_EQ(row_sum(a, src), 1001u * static_cast<std::size_t>(ranks)) << text;
    }
  }
}

TEST(PeerCounts, SkewMakesHotDestinations) {
  const PeerCountMatrix zipf = make_peer_counts(parse_skew("zipf:1.5"), 1, 8, 1000);
  const auto [lo, hi] = std::minmax_element(zipf.counts.begin(), zipf.counts.end());
  EXPECT_GT(*hi, 4 * *lo);
  // hotspot:2 over 8 ranks: the two hot peers get half of each row (4000 of 8000 elements each
  // row).
  const PeerCountMatrix hot = make_peer_counts(parse_skew("hotspot:2"), 1, 8, 1000);
  std::vector<std::size_t> row(hot.counts.begin(), hot.counts.begin() + 8);
  std::sort(row.rbegin(), row.rend());
  EXPECT_EQ(row[0] + row[1], 4000u);
  // Another seed picks other hot peers somewhere.
  bool differs = false;
  for (std::uint64_t seed = 2; seed < 10 && !differs; ++seed)
    differs = make_peer_counts(parse_skew("hotspot:2"), seed, 8, 1000).counts != hot.counts;
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace collreplay
