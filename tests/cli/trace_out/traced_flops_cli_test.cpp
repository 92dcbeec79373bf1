// TFLOP/s and MFU of a trace: with shapes (a step written by replay --trace-out carries its GEMMs
// as aten::mm with their dims) project --trace prints both, from exactly the step's GEMM FLOPs;
// without shapes they are unknown: project --trace and replay --trace print "-" for them (never
// 0.0%) and record null.
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

const std::string kQuick = " --backend mpi --steps 1 --warmup 0 --compute model:a100@0.001";
const std::string kTinyOne = " --model sweeps/models/replay-tiny.json --layers 1 --seq 32 --world 1";

std::string project_args() {
  return " --fabric eth-10g --compute model:h100@0.5 --gpus-per-node 1 --fabrics-file " +
         (bin_dir().parent_path().parent_path() / "sweeps/fabrics.tsv").string();
}

class TracedFlopsCli : public ScratchDirTest {};

TEST_F(TracedFlopsCli, ProjectPrintsTflopsAndMfuForATraceWithShapes) {
  const std::string trace = (dir_ / "t.json").string();
  ASSERT_EQ(run(bin("replay") + kQuick + kTinyOne + " --trace-out " + trace).exit_code, 0);
  // The step's GEMM FLOPs, from its schedule.
  const std::string schedule = (dir_ / "s.json").string();
  ASSERT_EQ(run(bin("replay") + " --dry-run --backend mpi" + kTinyOne + " --save-schedule " +
                schedule)
                .exit_code,
            0);
  double flops = 0;
  const json s = json::parse(slurp(schedule));
  for (const json& op : s["ops"])
    if (op.contains("compute"))
      for (const json& g : op["compute"]["gemms"])
        flops += 2.0 * g["m"].get<double>() * g["n"].get<double>() * g["k"].get<double>() *
                 g["batch"].get<double>();
  ASSERT_GT(flops, 0);
  const std::string out = (dir_ / "p.jsonl").string();
  const Outcome r = run(bin("project") + " --trace " + trace + " --nodes 1" + project_args() +
                        " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> mfu = column(r.out, "MFU"), tflops = column(r.out, "TFLOP/s");
  ASSERT_EQ(mfu.size(), 1u) << r.out;
  EXPECT_EQ(mfu[0].back(), '%') << r.out;
  ASSERT_EQ(tflops.size(), 1u) << r.out;
  EXPECT_NE(tflops[0], "-") << r.out;
  int rows = 0;
  for (const json& record : read_jsonl(out))
    if (record.contains("tflops_per_gpu")) {
      ASSERT_TRUE(record["tflops_per_gpu"].is_number()) << record.dump();
      EXPECT_NEAR(record["tflops_per_gpu"].get<double>() * record["step_ms"].get<double>() * 1e9,
                  flops, flops * 1e-9);
      EXPECT_NEAR(record["mfu"].get<double>(), record["tflops_per_gpu"].get<double>() / 989.4,
                  1e-12);
      ++rows;
    }
  EXPECT_EQ(rows, 1);
}

// A real torch job's trace taken with record_shapes (the FSDP2 fixture).
TEST_F(TracedFlopsCli, ProjectPrintsTflopsAndMfuForATorchTraceWithShapes) {
  const std::string out = (dir_ / "p.jsonl").string();
  const Outcome r = run(bin("project") + " --trace " +
                        test_support::fixtures("traces", "torch_fsdp2/rank0.trace.json") +
                        " --nodes 1,2" + project_args() + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& mfu : column(r.out, "MFU")) EXPECT_EQ(mfu.back(), '%') << r.out;
  for (const std::string& tflops : column(r.out, "TFLOP/s")) EXPECT_NE(tflops, "-") << r.out;
  int rows = 0;
  for (const json& record : read_jsonl(out))
    if (record.contains("tflops_per_gpu")) {
      ASSERT_TRUE(record["tflops_per_gpu"].is_number() && record["mfu"].is_number());
      EXPECT_NEAR(record["mfu"].get<double>(), record["tflops_per_gpu"].get<double>() / 989.4,
                  1e-12);
      ++rows;
    }
  EXPECT_EQ(rows, 2);
}

TEST_F(TracedFlopsCli, ProjectPrintsADashForATraceWithoutShapes) {
  const std::string out = (dir_ / "p.jsonl").string();
  const Outcome r = run(bin("project") + " --seq 512 --trace " +
                        test_support::fixtures("traces", "q05_small/rank0.trace.json") +
                        " --nodes 1,2" + project_args() + " --out " + out);
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

TEST_F(TracedFlopsCli, ReplayOfATracePrintsTheFiguresItKnows) {
  // Without shapes (the trimmed q05 fixture): "-" and null.
  const std::string out = (dir_ / "r.jsonl").string();
  const Outcome r = run(bin("replay") + kQuick + " --seq 512 --trace " +
                        test_support::fixtures("traces", "q05_1r/rank0.trace.json") + " --out " +
                        out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#   - TFLOP/s per rank  mfu - (model FLOPs; compute-only -)"),
            std::string::npos)
      << r.out;
  int steps = 0;
  for (const json& record : read_jsonl(out))
    if (record["record"] == "step") {
      EXPECT_TRUE(record["mfu"].is_null());
      EXPECT_TRUE(record["model_flops_per_step"].is_null());
      EXPECT_TRUE(record["tflops_per_rank"].is_null());
      ++steps;
    }
  EXPECT_EQ(steps, 1);
  // With shapes (a step written by --trace-out): numbers.
  const std::string trace = (dir_ / "t.json").string();
  ASSERT_EQ(run(bin("replay") + kQuick + kTinyOne + " --trace-out " + trace).exit_code, 0);
  const Outcome k = run(bin("replay") + kQuick + " --trace " + trace);
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(k.out.find("#   - TFLOP/s per rank"), std::string::npos) << k.out;
  EXPECT_EQ(k.out.find("mfu - "), std::string::npos) << k.out;
  EXPECT_NE(k.out.find(" TFLOP/s per rank  mfu "), std::string::npos) << k.out;
}

}  // namespace
}  // namespace collreplay::cli_test
