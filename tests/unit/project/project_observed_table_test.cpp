// The observed throughput table: header in any order, comments and extra columns, one label
// picked; bad tables (missing column, one row, non-positive or non-integer values, unknown
// model, a label the table lacks) refused with one line naming the place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/project/observed/observed_table.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

namespace fs = std::filesystem;

class ProjectObservedTable : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/collreplay-observed-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& text) {
    const fs::path path = dir_ / "t.csv";
    std::ofstream(path) << text;
    return path.string();
  }

  // The one-line message of the UsageError reading `text` throws ("" when it reads).
  std::string error_of(const std::string& text) {
    try {
      read_observed_table(write(text), "");
    } catch (const UsageError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      return message;
    }
    return "";
  }

  fs::path dir_;
};

constexpr const char* kHeader =
    "model,micro_batch,seq,nodes,gpus_per_node,fabric,tokens_per_s_per_gpu\n";

TEST_F(ProjectObservedTable, ReadsRowsInAnyColumnOrder) {
  const std::string path = write(
      "# a comment\n"
      "fabric, nodes ,model,seq,micro_batch,gpus_per_node,tokens_per_s_per_gpu,notes\n"
      "\n"
      "ib,1,qwen2.5-7b,2048,2,8,8505,first\n"
      "eth,2,qwen2.5-7b,2048,2,8,6874.5,\n"
      "ib,2,qwen2.5-72b,2048,1,8,568.3125,x\n");
  const std::vector<ObservedRow> rows = read_observed_table(path, "");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].model, "qwen2.5-7b");
  EXPECT_EQ(rows[0].fabric, "ib");
  EXPECT_EQ(rows[0].nodes, 1);
  EXPECT_EQ(rows[0].gpus_per_node, 8);
  EXPECT_EQ(rows[0].micro_batch, 2);
  EXPECT_EQ(rows[0].seq, 2048);
  EXPECT_EQ(rows[0].tokens_per_s_per_gpu, 8505);
  EXPECT_EQ(rows[0].line, 4);
  EXPECT_EQ(rows[1].tokens_per_s_per_gpu, 6874.5);
  const std::vector<ObservedRow> ib = rows_of_fabric(rows, "ib", path);
  ASSERT_EQ(ib.size(), 2u);
  EXPECT_EQ(ib[1].model, "qwen2.5-72b");
}

TEST_F(ProjectObservedTable, RefusesBadTablesNamingThePlace) {
  const std::string row = "qwen2.5-7b,2,2048,1,8,ib,8505\n";
  EXPECT_NE(error_of("model,micro_batch,seq,nodes,fabric,tokens_per_s_per_gpu\n" + row + row)
                .find("missing column 'gpus_per_node'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row).find("1 row(s)"), std::string::npos);
  EXPECT_NE(error_of(kHeader).find("0 row(s)"), std::string::npos);
  EXPECT_NE(error_of("# nothing\n").find("no header"), std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "qwen2.5-7b,2,2048,2,8,ib,0\n")
                .find(":3: tokens_per_s_per_gpu '0' is not a positive number"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "qwen2.5-7b,2,2048,2,8,ib,-5\n").find("'-5'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "qwen2.5-7b,2,2048,1.5,8,ib,6000\n")
                .find("nodes '1.5' is not a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "qwen2.5-7b,2,2048,2,8,ib,fast\n").find("'fast'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "qwen2.5-7b,2,2048,2,8\n").find("no value"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kHeader) + row + "gpt-9,2,2048,2,8,ib,6000\n")
                .find("unknown model 'gpt-9'"),
            std::string::npos);
  EXPECT_EQ(error_of(std::string(kHeader) + row + row), "");
  try {
    read_observed_table((dir_ / "absent.csv").string(), "");
    ADD_FAILURE() << "an absent file was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos);
  }
}

TEST_F(ProjectObservedTable, ALabelTheTableLacksNamesTheOnesItHas) {
  const std::string path = write(std::string(kHeader) + "qwen2.5-7b,2,2048,1,8,ib,8505\n" +
                                 "qwen2.5-7b,2,2048,1,8,eth,8510\n");
  try {
    rows_of_fabric(read_observed_table(path, ""), "roce", path);
    ADD_FAILURE() << "no rows expected";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no rows with fabric 'roce' (the table has: eth, ib)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collreplay::project
