// torch._grouped_mm's tiles as the one GEMM the GPU engine runs for a grouped GEMM
// (bench/compute/gemm/grouped_tiles.hpp): which tile torch's sm90 / sm100 kernel takes, when it
// loops instead, and the rows (or K) the tiles cover.
#include <gtest/gtest.h>

#include "bench/compute/gemm/grouped_tiles.hpp"
#include "common/errors.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {
namespace {

// Mixtral-8x7B's gate/up forward at micro-batch 2 x 2048, top-2: eight groups near 1,024 rows.
const std::vector<std::int64_t> kMixtralRows = {1030, 978, 995, 1029, 998, 1008, 1084, 1070};

TEST(GroupedTiles, TorchTakesItsLargeTileOnHopperForLargeGroups) {
  const GemmShape g = grouped_gemm(kMixtralRows, 0, 28672, 4096, false, "gate_up fwd");
  const auto tile = torch_grouped_mm_tile(g, DType::bf16, 9);
  ASSERT_TRUE(tile.has_value());
  EXPECT_EQ(tile->m, 128);
  EXPECT_EQ(tile->n, 256);
  EXPECT_EQ(tile->k, 64);
}

TEST(GroupedTiles, SmallMeanGroupsOrNarrowOutputsTakeTheSmallTile) {
  const GemmShape few_rows = grouped_gemm({100, 140, 90, 170}, 0, 4096, 2048, false, "fwd");
  EXPECT_EQ(torch_grouped_mm_tile(few_rows, DType::bf16, 9)->m, 64);  // mean 125 rows
  const GemmShape narrow = grouped_gemm({512, 512}, 0, 128, 2048, false, "fwd");
  EXPECT_EQ(torch_grouped_mm_tile(narrow, DType::bf16, 9)->n, 128);
  const GemmShape large = grouped_gemm(kMixtralRows, 0, 28672, 4096, false, "fwd");
  EXPECT_EQ(torch_grouped_mm_tile(large, DType::bf16, 10)->m, 64);  // sm100: one tile for all
}

TEST(GroupedTiles, TorchLoopsWhereItHasNoGroupedKernel) {
  const GemmShape g = grouped_gemm(kMixtralRows, 0, 28672, 4096, false, "fwd");
  EXPECT_FALSE(torch_grouped_mm_tile(g, DType::bf16, 8).has_value());   // A100
  EXPECT_FALSE(torch_grouped_mm_tile(g, DType::bf16, 12).has_value());  // consumer Blackwell
  EXPECT_FALSE(torch_grouped_mm_tile(g, DType::f16, 9).has_value());    // bf16 only
}

TEST(GroupedTiles, GroupsSplittingMRunAsABatchOverTheMeanTileRoundedRows) {
  const GemmShape g = grouped_gemm(kMixtralRows, 0, 28672, 4096, false, "fwd");
  const GemmShape one = grouped_tiles_as_one_gemm(g, {128, 256, 64});
  // 1030 -> 1152, 978 -> 1024, ...: 9 + 8 + 8 + 9 + 8 + 8 + 9 + 9 tiles of 128 rows, 8 experts.
  EXPECT_EQ(one.m * one.batch, 68 * 128);
  EXPECT_EQ(one.batch, 8);
  EXPECT_EQ(one.n, 28672);
  EXPECT_EQ(one.k, 4096);
  EXPECT_TRUE(one.group_rows.empty());
  EXPECT_FALSE(one.a_transposed);
}

TEST(GroupedTiles, AnEmptyGroupCostsNoTiles) {
  const GemmShape g = grouped_gemm({0, 300, 0, 1}, 0, 1024, 1024, false, "fwd");
  const GemmShape one = grouped_tiles_as_one_gemm(g, {128, 256, 64});
  EXPECT_EQ(one.batch, 2);
  EXPECT_EQ(one.m, (384 + 128) / 2);
}

TEST(GroupedTiles, GroupsSplittingKRunAsABatchOverTheMeanTileRoundedK) {
  // The weight gradient dW_g = dY_g^T X_g: an output of its own per group.
  const GemmShape g = grouped_gemm({1030, 0, 995, 1084}, 14336, 4096, 0, true, "down wgrad");
  const GemmShape one = grouped_tiles_as_one_gemm(g, {128, 256, 64});
  EXPECT_EQ(one.batch, 3);                       // the empty group writes nothing
  EXPECT_EQ(one.k, 1072);  // (1088 + 1024 + 1088) / 3 = 1066.7, rounded up to 8s
  EXPECT_EQ(one.m, 14336);
  EXPECT_EQ(one.n, 4096);
  EXPECT_TRUE(one.a_transposed);
}

TEST(GroupedTiles, APlainGemmIsReturnedAsItIs) {
  const GemmShape plain{512, 1024, 2048, 1, "plain"};
  const GemmShape one = grouped_tiles_as_one_gemm(plain, {128, 256, 64});
  EXPECT_EQ(one.m, 512);
  EXPECT_EQ(one.label, "plain");
}

TEST(GroupedTiles, TheFlagsWordsRoundTripAndAnUnknownOneIsAUsageError) {
  for (GroupedGemmPath p :
       {GroupedGemmPath::torch, GroupedGemmPath::cublas_grouped, GroupedGemmPath::loop})
    EXPECT_EQ(grouped_gemm_path(grouped_gemm_path_word(p)), p);
  EXPECT_EQ(grouped_gemm_path("auto"), GroupedGemmPath::torch);
  EXPECT_THROW(grouped_gemm_path("grouped"), UsageError);
}

}  // namespace
}  // namespace collreplay
