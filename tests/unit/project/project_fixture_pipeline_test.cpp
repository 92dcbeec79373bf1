// The published fixture's optional pipeline columns, pp and pp_schedule: read into the row
// (defaults 1 and the builder's 1f1b) and refused with one line naming the place when pp is not a
// positive whole number.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/project/check/published_fixture.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

constexpr const char* kHeader =
    "series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,"
    "reduce_dtype,tokens_per_s_per_gpu,band,source,tp,pp,pp_schedule";

std::string write(const std::string& text) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "pipeline_columns.csv";
  std::ofstream(path) << text;
  return path.string();
}

const char* kRow = "F,nemotron-4-340b,h100,8,16,ib-ndr-8x400,ddp,full,1,16,4096,no,bf16,222,2,a source,8";

TEST(ProjectFixturePipeline, ReadsStagesAndSchedule) {
  const std::vector<PublishedRow> rows = read_published_fixture(
      write(std::string(kHeader) + "\n" + kRow + ",8,interleaved:12\n" + kRow + ",,\n"), "");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].pp, 8);
  EXPECT_EQ(rows[0].pp_schedule, "interleaved:12");
  EXPECT_EQ(rows[1].pp, 1);
  EXPECT_EQ(rows[1].pp_schedule, "");
}

TEST(ProjectFixturePipeline, BadStageCountIsOneLineNamingTheRow) {
  for (const std::string cells : {",0,1f1b", ",two,1f1b"}) {
    try {
      read_published_fixture(write(std::string(kHeader) + "\n" + kRow + cells + "\n"), "");
      ADD_FAILURE() << cells << " was read";
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("pipeline_columns.csv:2"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace collreplay::project
