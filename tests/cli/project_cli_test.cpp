// Runs build/bin/project as a subprocess: projections over a profile and over a fitted synthetic
// sweep write the agreed JSONL records; --validate predicts a held-out node count; bad input
// (unknown fabric, too few node counts, no multi-node points, groups that do not tile nodes,
// a 1-node GPU folder to validate) exits 2 with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/project_synthetic.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

namespace synthetic = collreplay::project::synthetic;

std::string project() { return (bin_dir() / "project").string(); }

class ProjectCli : public ScratchDirTest {};

constexpr const char* kSmall = " --model qwen2.5-0.5b --micro-batch 1 --seq 1024 --gpus-per-node 2";

TEST_F(ProjectCli, ProfileProjectionWritesOneRecordPerNodeCount) {
  const fs::path out = dir_ / "p.jsonl";
  const Outcome r =
      run(project() + kSmall +
          " --fabric eth-10g --compute model:h100@0.4 --nodes 1,2,4,1024 --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tipping point"), std::string::npos);
  std::vector<nlohmann::json> projections;
  for (const auto& rec : read_jsonl(out))
    if (rec["record"] == "projection") projections.push_back(rec);
  ASSERT_EQ(projections.size(), 4u);
  for (const char* key :
       {"model", "fabric", "gpus_per_node", "nodes", "compute", "layer_comm_ms", "layer_compute_ms",
        "headroom_ms", "headroom_lo_ms", "headroom_hi_ms", "exposed_comm_ms", "tokens_per_s", "mfu",
        "tipping_point_nodes", "source", "units"})
    EXPECT_TRUE(projections[0].contains(key)) << key;
  EXPECT_EQ(projections[0]["source"], "projected");
  EXPECT_EQ(projections[3]["nodes"], 1024);
  EXPECT_EQ(projections[3]["fabric"], "eth-10g");
  // 10 Gbit/s cannot hide a layer's parameters at 1024 nodes: the tipping point is in range.
  EXPECT_LT(projections[3]["headroom_ms"].get<double>(), 0);
  EXPECT_TRUE(projections[3]["tipping_point_nodes"].is_number());
  EXPECT_LE(projections[0]["headroom_lo_ms"].get<double>(),
            projections[0]["headroom_hi_ms"].get<double>());
}

TEST_F(ProjectCli, FittedSweepProjectsAndValidates) {
  collreplay::WorkloadRequest replay;
  replay.model = "qwen2.5-0.5b";
  replay.layers = 2;
  replay.seq = 256;
  synthetic::write_sweep(dir_ / "sweep", {1, 2, 4, 8}, 2, 0.02, &replay);
  const fs::path out = dir_ / "v.jsonl";
  Outcome r =
      run(project() + " --validate " + (dir_ / "sweep").string() + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto records = read_jsonl(out);
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.front()["record"], "fit");
  const nlohmann::json& summary = records.back();
  ASSERT_EQ(summary["record"], "validation_summary");
  EXPECT_EQ(summary["held_out_nodes"], 8);
  for (const char* level : {"collective", "unit", "step"}) {
    ASSERT_TRUE(summary.contains(level)) << level;
    EXPECT_LT(summary[level]["max_abs_error_pct"].get<double>(), 10.0) << level;
  }
  r = run(project() + kSmall + " --fabric " + (dir_ / "sweep").string() +
          " --compute model:h100@0.5 --nodes 1,8,64 --out " + (dir_ / "f.jsonl").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto fitted = read_jsonl(dir_ / "f.jsonl");
  ASSERT_EQ(fitted.size(), 4u);  // the fit, then one projection per node count
  EXPECT_EQ(fitted[0]["record"], "fit");
  EXPECT_EQ(fitted[3]["nodes"], 64);
  // A fit is named by the fabric its runs recorded (so a figure continues their measured line),
  // and says where it came from.
  EXPECT_EQ(fitted[3]["fabric"], "synthetic");
  EXPECT_EQ(fitted[3]["fabric_source"], "fit:" + (dir_ / "sweep").string());
}

TEST_F(ProjectCli, ASweepOverTwoFabricsNeedsOnePicked) {
  synthetic::write_sweep(dir_ / "sweep" / "a", {1, 2, 4}, 2, 0.01);
  synthetic::write_sweep(dir_ / "sweep" / "b", {1, 2, 4}, 2, 0.01);
  for (const auto& entry : fs::directory_iterator(dir_ / "sweep" / "b")) {
    std::string text = slurp(entry.path());
    for (std::size_t at; (at = text.find("\"synthetic\"")) != std::string::npos;)
      text.replace(at, 11, "\"other\"");
    std::ofstream(entry.path()) << text;
  }
  const std::string base = project() + kSmall + " --compute model:h100@0.5 --nodes 1,16 --fabric " +
                           (dir_ / "sweep").string();
  Outcome r = run(base);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--results-fabric"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1);
  r = run(base + " --results-fabric other");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run(project() + " --validate " + (dir_ / "sweep").string() + " --results-fabric synthetic");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(ProjectCli, BadInputExitsTwoWithOneLine) {
  synthetic::Noise noise(0);
  synthetic::write_jsonl(dir_ / "two_nodes" / "perf.jsonl",
                         synthetic::perf_records(synthetic::truth(), 2, 2, noise));
  synthetic::write_jsonl(dir_ / "one_node" / "perf.jsonl",
                         synthetic::perf_records(synthetic::truth(), 1, 2, noise));
  synthetic::write_sweep(dir_ / "sweep", {1, 2}, 2, 0);
  const std::string base = project() + kSmall + " --compute model:h100@0.5";
  const fs::path gpu_results = bin_dir() / "../../sweeps/measured/2026-11-23";
  const std::string bad[] = {
      base + " --fabric no-such-fabric",
      base + " --fabric " + (dir_ / "two_nodes").string(),  // fewer than 2 node counts
      base + " --fabric " + (dir_ / "one_node").string(),   // no multi-node points
      base + " --fabric eth-10g --nodes 1,x",
      base + " --fabric eth-10g --nodes 0",
      base + " --fabric eth-10g --world 16",
      project() + kSmall + " --fabric eth-10g --compute model:h100@",
      project() + kSmall + " --fabric eth-10g --compute model:tpu@0.5",
      project() + kSmall + " --fabric eth-10g --compute model:z80",
      project() + kSmall + " --fabric eth-10g --compute abacus",
      // Expert groups of 8 ranks do not tile nodes of 3 GPUs.
      project() +
          " --model mixtral-8x7b --layers 1 --ep 8 --gpus-per-node 3 --nodes 8 --fabric eth-10g"
          " --compute model:h100@0.5",
      project() + " --validate " + (dir_ / "sweep").string(),  // 2 node counts: nothing to hold out
      project() + " --validate " + gpu_results.string(),       // the real GPU results: 1 node only
      project() + " --validate /nonexistent/results",
      base + " --fabric eth-10g --out /nonexistent/dir/p.jsonl",
  };
  for (const std::string& command : bad) {
    const Outcome r = run(command);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << command;
    EXPECT_EQ(r.out, "") << command << ": refused after printing a fit";
  }
  EXPECT_FALSE(fs::exists("/nonexistent/dir/p.jsonl"));
}

TEST_F(ProjectCli, RealGpuResultsRefuseValidationNamingTheNodeCount) {
  const Outcome r =
      run(project() + " --validate " + (bin_dir() / "../../sweeps/measured/2026-11-23").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("found 1 (1 nodes)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace collreplay::cli_test
