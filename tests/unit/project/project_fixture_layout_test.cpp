// The published fixture's optional layout columns: tp, distributed_optimizer, async_tp and
// ddp_bucket_size, read into the row (defaults 1, no, no, 0) and refused with one line naming the
// place when malformed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/project/check/published_fixture.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader =
    "series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,"
    "reduce_dtype,tokens_per_s_per_gpu,band,source";

std::string write(const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / "layout_columns.csv";
  std::ofstream(path) << text;
  return path.string();
}

std::string base_row() {
  return "E,nemotron-4-15b,h100,8,2,ib-ndr-8x400,ddp,full,4,4,4096,no,fp32,5789,2,a source";
}

TEST(ProjectFixtureLayout, ColumnsDefaultToOneRankAndNo) {
  const std::vector<PublishedRow> rows =
      read_published_fixture(write(std::string(kHeader) + "\n" + base_row() + "\n"), "");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].tp, 1);
  EXPECT_FALSE(rows[0].distributed_optimizer);
  EXPECT_FALSE(rows[0].async_tp);
  EXPECT_EQ(rows[0].ddp_bucket_size, 0);
}

TEST(ProjectFixtureLayout, ReadsTensorParallelAndTheDistributedOptimizer) {
  const std::string text = std::string(kHeader) + ",tp,distributed_optimizer,async_tp,ddp_bucket_size\n" +
                           base_row() + ",4,yes,yes,52428800\n" + base_row() + ",2,no,no,\n";
  const std::vector<PublishedRow> rows = read_published_fixture(write(text), "");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].tp, 4);
  EXPECT_TRUE(rows[0].distributed_optimizer);
  EXPECT_TRUE(rows[0].async_tp);
  EXPECT_EQ(rows[0].ddp_bucket_size, 52428800);
  EXPECT_EQ(rows[1].tp, 2);
  EXPECT_EQ(rows[1].ddp_bucket_size, 0);
  EXPECT_FALSE(rows[1].distributed_optimizer);
}

TEST(ProjectFixtureLayout, MalformedValuesAreOneLineNamingTheRow) {
  for (const char* cells : {",0,yes,no,1", ",4,maybe,no,1", ",4,yes,on,1", ",4,yes,no,-3"}) {
    try {
      read_published_fixture(
          write(std::string(kHeader) + ",tp,distributed_optimizer,async_tp,ddp_bucket_size\n" +
                base_row() + cells + "\n"),
          "");
      ADD_FAILURE() << cells << " was read";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("layout_columns.csv:2"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace collreplay::project
