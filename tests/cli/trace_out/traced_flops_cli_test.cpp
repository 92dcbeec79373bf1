// TFLOP/s and MFU of a trace without shapes are unknown: project --trace and replay --trace print
// "-" for them (never 0.0%) and record null. (With shapes the importer counts the FLOPs;
// tests/unit/replay/step_flops_test.cpp and tests/unit/project/project_traced_flops_test.cpp
// show a known figure printed.)
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

std::string bin(const std::string& name) { return (bin_dir() / name).string(); }

// The value of `column` in each data row of a whitespace-separated table under a "#" header.
std::vector<std::string> column(const std::string& table, const std::string& name) {
  std::istringstream in(table);
  std::string line;
  int at = -1;
  std::vector<std::string> values;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    if (at < 0) {
      for (std::size_t i = 0; i < w.size(); ++i)
        if (w[i] == name) at = static_cast<int>(i);
      continue;
    }
    if (w[0] == "#") continue;
    if (static_cast<int>(w.size()) > at) values.push_back(w[static_cast<std::size_t>(at)]);
  }
  return values;
}

class TracedFlopsCli : public ScratchDirTest {};

TEST_F(TracedFlopsCli, ProjectPrintsADashForATraceWithoutShapes) {
  const std::string out = (dir_ / "p.jsonl").string();
  const Outcome r = run(bin("project") + " --seq 512 --trace " +
                        test_support::fixtures("traces", "q05_small/rank0.trace.json") +
                        " --fabric eth-10g --compute model:h100@0.5 --nodes 1,2 "
                        "--gpus-per-node 1 --fabrics-file " +
                        (bin_dir().parent_path().parent_path() / "sweeps/fabrics.tsv").string() +
                        " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("0.0%"), std::string::npos) << r.out;
  EXPECT_EQ(column(r.out, "MFU"), (std::vector<std::string>{"-", "-"})) << r.out;
  EXPECT_EQ(column(r.out, "TFLOP/s"), (std::vector<std::string>{"-", "-"})) << r.out;
  int rows = 0;
  for (const json& record : read_jsonl(out))
    if (record.contains("mfu")) {
      EXPECT_TRUE(record["mfu"].is_null()) << record.dump();
      EXPECT_TRUE(record["tflops_per_gpu"].is_null()) << record.dump();
      ++rows;
    }
  EXPECT_EQ(rows, 2);
}

TEST_F(TracedFlopsCli, ReplayOfATraceWithoutShapesPrintsADash) {
  // A trace without shapes: a tiny model's step written by --trace-out, replayed as a trace.
  const std::string quick = " --backend mpi --steps 1 --warmup 0 --compute model:a100@0.001";
  const std::string trace = (dir_ / "t.json").string();
  const Outcome w = run(bin("replay") + quick +
                        " --model sweeps/models/replay-tiny.json --layers 1 --seq 32 --world 1"
                        " --trace-out " + trace);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const std::string out = (dir_ / "r.jsonl").string();
  const Outcome r = run(bin("replay") + quick + " --trace " + trace + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#   - TFLOP/s per rank  mfu - (model FLOPs; compute-only -)"),
            std::string::npos)
      << r.out;
  for (const json& record : read_jsonl(out))
    if (record["record"] == "step") {
      EXPECT_TRUE(record["mfu"].is_null());
      EXPECT_TRUE(record["model_flops_per_step"].is_null());
      EXPECT_TRUE(record["tflops_per_rank"].is_null());
    }
}

}  // namespace
}  // namespace collreplay::cli_test
