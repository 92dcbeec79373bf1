#include "bench/app/stats.hpp"

#include <gtest/gtest.h>

#include "bench/compute/compute_scale.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

TEST(Stats, MedianAndSpread) {
  const std::vector<double> odd{3, 1, 2}, even{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(odd), 2);
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{}), 0);
  EXPECT_DOUBLE_EQ(spread(odd), 1.0);
  EXPECT_DOUBLE_EQ(spread(std::vector<double>{5}), 0);
}

TEST(Stats, AcrossRanksFindsTheSlowestRank) {
  // 3 ranks x 2 columns
  const std::vector<double> values{1, 10, 5, 9, 3, 11};
  const auto stats = summarize_across_ranks(values, 3, 2);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_DOUBLE_EQ(stats[0].max, 5);
  EXPECT_EQ(stats[0].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(stats[0].median, 3);
  EXPECT_DOUBLE_EQ(stats[0].min, 1);
  EXPECT_EQ(stats[1].slowest_rank, 2);
  EXPECT_THROW(summarize_across_ranks(values, 4, 2), RuntimeError);
}

TEST(ComputeScale, WholeRunsPlusScaledRemainder) {
  ComputeOp op;
  op.gemms = {{100, 8, 8, 1, "a"}, {10, 8, 8, 2, "b"}};
  EXPECT_EQ(stretch_gemms(op, 1).size(), 2u);
  const auto stretched = stretch_gemms(op, 2.5);
  ASSERT_EQ(stretched.size(), 6u);
  EXPECT_EQ(stretched[4].m, 50);
  EXPECT_EQ(stretched[5].m, 5);
  const auto tiny = stretch_gemms(op, 0.01);
  ASSERT_EQ(tiny.size(), 1u);  // 10 * 0.01 rounds to 0 and is dropped
  EXPECT_EQ(tiny[0].m, 1);
  EXPECT_TRUE(stretch_gemms(op, 0).empty());
  EXPECT_THROW(stretch_gemms(op, -1), UsageError);
}

}  // namespace
}  // namespace collreplay
