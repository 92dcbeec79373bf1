// The results reader: folders read recursively, malformed lines reported as file:line and
// skipped, missing optional fields tolerated through the documented fallbacks.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "plots/results.hpp"
#include "tests/plots/plots_fixture.hpp"

namespace collreplay::plots {
namespace {

using testing::fixtures;

class Reader : public cli_test::ScratchDirTest {};

TEST_F(Reader, ReadsEveryKindFromTheFixtureFolderRecursively) {
  std::ostringstream warnings;
  const std::vector<Record> records = read_results({fixtures()}, warnings);
  EXPECT_EQ(warnings.str(), "");
  EXPECT_EQ(of_kind(records, "perf").size(), 28u);
  EXPECT_EQ(of_kind(records, "projection").size(), 22u);
  EXPECT_EQ(of_kind(records, "counters").size(), 180u);
  EXPECT_EQ(of_kind(records, "step").size(), 9u);  // 2 GPU + 6 emulated + 1 host replay
  EXPECT_GT(of_kind(records, "op").size(), 20u);
  for (const Record& r : records) EXPECT_GT(r.line, 0);
}

TEST_F(Reader, MalformedLinesAreReportedWithFileAndLineAndSkipped) {
  const auto file = dir_ / "sub" / "mixed.jsonl";
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << "{\"record\":\"unit\",\"unit\":\"layers.0\",\"headroom_ms\":1}\n"
                      << "{\"record\":\"unit\",\"unit\":\n"
                      << "\n"
                      << "[1,2]\n"
                      << "{\"op\":\"all_gather\",\"bytes\":1024,\"busbw_GBps\":2.5}\n";
  std::ofstream(dir_ / "notes.txt") << "not results\n";  // only *.jsonl in folders
  std::ostringstream warnings;
  const std::vector<Record> records = read_results({dir_.string()}, warnings);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].line, 5);
  const std::string text = warnings.str();
  EXPECT_NE(text.find(file.string() + ":2: "), std::string::npos) << text;
  EXPECT_NE(text.find(file.string() + ":4: not a JSON object"), std::string::npos) << text;
  EXPECT_EQ(text.find(":3:"), std::string::npos) << "blank lines are not errors: " << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST_F(Reader, AMissingPathIsAUsageError) {
  std::ostringstream warnings;
  EXPECT_THROW(read_results({(dir_ / "nope").string()}, warnings), UsageError);
}

TEST(Fields, FallBackWhenOptionalFieldsAreMissing) {
  const auto bare = nlohmann::json::parse(R"({"record":"unit","unit":"layers.3"})");
  EXPECT_EQ(fabric_of(bare), "?");
  EXPECT_EQ(nodes_of(bare), 1);
  EXPECT_EQ(model_of(bare, {}), "?");
  const auto old_run = nlohmann::json::parse(
      R"({"record":"unit","run":{"transport_verified":"socket","nodes":2,
          "command_line":["replay","--model","sweeps/models/replay-tiny.json"]}})");
  EXPECT_EQ(fabric_of(old_run), "socket");
  EXPECT_EQ(nodes_of(old_run), 2);
  EXPECT_EQ(model_of(old_run, {}), "replay-tiny");
  const auto emulated = nlohmann::json::parse(
      R"({"run":{"fabric":"eth-10g","transport_verified":"socket","nodes":4}})");
  EXPECT_EQ(fabric_of(emulated), "eth-10g");
  const auto real = nlohmann::json::parse(R"({"run":{"fabric":"real","transport_verified":"ib"}})");
  EXPECT_EQ(fabric_of(real), "ib");
  EXPECT_TRUE(is_decoder_layer("layers.12"));
  EXPECT_FALSE(is_decoder_layer("root"));
  EXPECT_FALSE(is_decoder_layer("layers.1.mlp"));
}

}  // namespace
}  // namespace collreplay::plots
