// The results reader: folders read recursively, malformed lines reported as file:line and
// skipped (or refused, strictly), missing optional fields tolerated through the documented
// fallbacks, mistyped ones reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "records/results_reader.hpp"
#include "records/run_facts.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::records {
namespace {

using test_support::results_fixtures;

class Reader : public cli_test::ScratchDirTest {};

TEST_F(Reader, ReadsEveryKindFromTheFixtureFolderRecursively) {
  std::ostringstream warnings;
  const std::vector<Record> records = read_results({results_fixtures()}, warnings);
  EXPECT_EQ(warnings.str(), "");
  EXPECT_EQ(of_kind(records, "perf").size(), 28u);
  EXPECT_EQ(of_kind(records, "projection").size(), 22u);
  EXPECT_EQ(of_kind(records, "counters").size(), 180u);
  EXPECT_EQ(of_kind(records, "step").size(), 9u);  // 2 GPU + 6 emulated + 1 host replay
  EXPECT_GT(of_kind(records, "op").size(), 20u);
  for (const Record& r : records) EXPECT_GT(r.line, 0);
  EXPECT_EQ(read_results_strictly({results_fixtures()}).size(), records.size());
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
  EXPECT_EQ(records[1].where(), file.string() + ":5");
  const std::string text = warnings.str();
  EXPECT_NE(text.find(file.string() + ":2: "), std::string::npos) << text;
  EXPECT_NE(text.find(file.string() + ":4: not a JSON object, skipped"), std::string::npos) << text;
  EXPECT_EQ(text.find(":3:"), std::string::npos) << "blank lines are not errors: " << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST_F(Reader, StrictlyAMalformedLineIsAUsageErrorNamingFileAndLine) {
  const auto file = dir_ / "bad.jsonl";
  std::ofstream(file) << "{\"op\":\"all_gather\"}\n\n[1,2]\n";
  try {
    read_results_strictly({dir_.string()});
    FAIL() << "a line that is not an object was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ":3: not a JSON object");
  }
}

TEST_F(Reader, AFileIsReadWhateverItsNameAndAMissingPathIsAUsageError) {
  std::ofstream(dir_ / "results.txt") << "{\"record\":\"step\"}\n";
  std::ostringstream warnings;
  EXPECT_EQ(read_results({(dir_ / "results.txt").string()}, warnings).size(), 1u);
  EXPECT_EQ(results_files(dir_.string()).size(), 0u);
  EXPECT_THROW(read_results({(dir_ / "nope").string()}, warnings), UsageError);
  EXPECT_THROW(read_results_strictly({(dir_ / "nope").string()}), UsageError);
}

TEST(Fields, MissingOrMistypedFieldsAreEmptyAndMistypedOnesAreReported) {
  const Record r{nlohmann::json::parse(R"({"op":"all_gather","bytes":"1M","run":{"nodes":2}})"),
                 "r.jsonl", 7};
  EXPECT_EQ(r.kind(), "perf");
  EXPECT_EQ(r.number("run/nodes"), 2.0);
  EXPECT_EQ(r.text("op"), "all_gather");
  std::ostringstream warnings;
  EXPECT_EQ(r.number("bytes", &warnings), std::nullopt);
  EXPECT_EQ(r.number("time_us", &warnings), std::nullopt);  // missing: no warning
  EXPECT_EQ(r.text("run", &warnings), std::nullopt);
  EXPECT_EQ(r.number("run/nodes/x", &warnings), std::nullopt);
  EXPECT_EQ(warnings.str(),
            "r.jsonl:7: 'bytes' is a string, not a number\n"
            "r.jsonl:7: 'run' is an object, not a string\n");
  EXPECT_EQ(number_at(r.data, "bytes"), std::nullopt);
  EXPECT_EQ(text_at(r.data, "run/nodes"), std::nullopt);
}

// Perf records say "perf"; older ones said nothing and read as perf all the same.
TEST(Fields, PerfRecordsWithAndWithoutTheirKind) {
  EXPECT_EQ(record_kind(nlohmann::json::parse(R"({"record":"perf","op":"all_gather"})")), "perf");
  EXPECT_EQ(record_kind(nlohmann::json::parse(R"({"op":"all_gather","bytes":8})")), "perf");
}

TEST(Fields, FallBackWhenOptionalFieldsAreMissing) {
  const auto bare = nlohmann::json::parse(R"({"record":"unit","unit":"layers.3"})");
  EXPECT_EQ(record_kind(bare), "unit");
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

TEST(Fields, AReplayRecordFindsItsModelThroughItsRunsStepRecord) {
  std::vector<Record> records = {
      {nlohmann::json::parse(R"({"record":"unit","unit":"root","run":{"ranks":2}})"), "a", 1},
      {nlohmann::json::parse(R"({"record":"step","model":"qwen2.5-7b","run":{"ranks":2}})"), "a",
       2},
  };
  const ModelIndex index = index_models(records);
  EXPECT_EQ(model_of(records[0].data, index), "qwen2.5-7b");
  EXPECT_EQ(run_key(records[0].data), run_key(records[1].data));
}

}  // namespace
}  // namespace collreplay::records
