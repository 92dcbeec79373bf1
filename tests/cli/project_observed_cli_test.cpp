// `project --observed`: the published 8x H100 table (tests/fixtures/observed, FACTS.md) fitted
// and reproduced per node count; the cross-model check (Qwen2.5-7B rows plus Qwen2.5-72B at 2
// nodes fitted, 72B at 4 and 8 nodes predicted); bad tables exit 2 with one line and no file.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string project() { return (bin_dir() / "project").string(); }
std::string fixture(const std::string& name) {
  return (bin_dir() / "../../tests/fixtures/observed" / name).string();
}

std::vector<nlohmann::json> records_of(const fs::path& path, const std::string& kind) {
  std::vector<nlohmann::json> records;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json r = nlohmann::json::parse(line);
    if (r["record"] == kind) records.push_back(r);
  }
  return records;
}

class ProjectObservedCli : public ScratchDirTest {};

// The seeds' Qwen2.5-7B table, tokens/s per GPU by fabric and node count.
const std::map<std::string, std::map<int, double>> kSevenB{
    {"ib", {{1, 8505}, {2, 6876}, {4, 6665}, {8, 6474}}},
    {"eth", {{1, 8510}, {2, 6874}, {4, 6882}, {8, 6630}}}};

TEST_F(ProjectObservedCli, ReproducesTheFittedTableWithinFivePercent) {
  for (const auto& [fabric, table] : kSevenB) {
    const fs::path out = dir_ / (fabric + ".jsonl");
    const Outcome r = run(project() + " --observed " + fixture("ndv5_qwen7b.csv") + " --fabric " +
                          fabric +
                          " --model qwen2.5-7b --micro-batch 2 --seq 2048 --gpus-per-node 8"
                          " --nodes 1,2,4,8 --out " +
                          out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* said : {"inter-node bandwidth", "overhead per collective", "compute slowdown",
                             "link spread", "effective MFU", "optimizer step", "behaves like"})
      EXPECT_NE(r.out.find(said), std::string::npos) << said;
    ASSERT_EQ(records_of(out, "observed_fit").size(), 1u);
    const auto projections = records_of(out, "projection");
    ASSERT_EQ(projections.size(), 4u);
    for (const nlohmann::json& p : projections) {
      const int nodes = p["nodes"];
      const double per_gpu = p["tokens_per_s_per_gpu"];
      EXPECT_NEAR(per_gpu / table.at(nodes), 1, 0.05) << fabric << " " << nodes << " nodes";
      EXPECT_NEAR(p["tokens_per_s"].get<double>(), per_gpu * 8 * nodes, 1e-6 * per_gpu * nodes);
      EXPECT_LE(p["tokens_per_s_per_gpu_lo"].get<double>(), per_gpu + 1e-9);
      EXPECT_GE(p["tokens_per_s_per_gpu_hi"].get<double>(), per_gpu - 1e-9);
    }
  }
}

TEST_F(ProjectObservedCli, PredictsHeldOutRowsOfAModelSeenAtOneNodeCount) {
  for (const std::string fabric : {"ib", "eth"}) {
    const fs::path out = dir_ / (fabric + ".jsonl");
    const Outcome r =
        run(project() + " --observed " + fixture("ndv5_fit_7b_72b2n.csv") + " --held-out " +
            fixture("ndv5_qwen72b_held_out.csv") + " --fabric " + fabric +
            " --model qwen2.5-72b --micro-batch 1 --seq 2048 --gpus-per-node 8 --nodes 2,4,8,1024"
            " --out " +
            out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto checks = records_of(out, "observed_check");
    ASSERT_EQ(checks.size(), 2u);
    for (const nlohmann::json& c : checks) {
      const int nodes = c["nodes"];
      const double error = c["error_pct"], observed = c["observed_tokens_per_s_per_gpu"];
      RecordProperty(fabric + "_72b_" + std::to_string(nodes) + "_nodes_error_pct",
                     std::to_string(error));
      // The real figure lies inside the band of every parameter set that fits the other rows,
      // widened by the projection's interval for the doublings from the fitted 2-node row.
      EXPECT_LE(c["predicted_lo"].get<double>(), observed) << fabric << " " << nodes;
      EXPECT_GE(c["predicted_hi"].get<double>(), observed) << fabric << " " << nodes;
      // Within 10% per GPU, except the "Ethernet" column's 8-node row: its 72B run lost 20% from
      // 4 to 8 nodes while its 7B rows stayed level from 2 to 8, so nothing fitted on them can
      // know it (bench/project/README.md, "Cross-model check").
      if (fabric == "ib" || nodes == 4) {
        EXPECT_LT(std::fabs(error), 10) << fabric << " " << nodes;
      }
    }
  }
}

TEST_F(ProjectObservedCli, BadTablesExitTwoWithOneLineAndNoFile) {
  const std::string header = "model,micro_batch,seq,nodes,gpus_per_node,fabric,tokens_per_s_per_gpu\n";
  const std::string one = "qwen2.5-7b,2,2048,1,8,ib,8505\n", two = "qwen2.5-7b,2,2048,2,8,ib,6876\n",
                    four = "qwen2.5-7b,2,2048,4,8,ib,6665\n";
  const std::map<std::string, std::string> tables{
      {"missing_column", "model,micro_batch,seq,nodes,fabric,tokens_per_s_per_gpu\n" + one + two},
      {"one_row", header + one},
      {"zero_throughput", header + one + "qwen2.5-7b,2,2048,2,8,ib,0\n" + four},
      {"negative_throughput", header + one + "qwen2.5-7b,2,2048,2,8,ib,-6876\n" + four},
      {"unknown_model", header + one + "qwen9-7t,2,2048,2,8,ib,6876\n" + four},
      {"no_one_node_row", header + two + four},
      {"one_multi_node_count", header + one + two},
      {"other_label", header + "qwen2.5-7b,2,2048,1,8,eth,8510\n" + one + two + four},
  };
  const std::string workload =
      " --model qwen2.5-7b --micro-batch 2 --seq 2048 --gpus-per-node 8 --nodes 1,2";
  std::vector<std::string> commands;
  for (const auto& [name, text] : tables) {
    std::ofstream(dir_ / (name + ".csv")) << text;
    const std::string label = name == "other_label" ? "roce" : "ib";
    commands.push_back(project() + " --observed " + (dir_ / (name + ".csv")).string() +
                       " --fabric " + label + workload);
  }
  const std::string good = project() + " --observed " + fixture("ndv5_qwen7b.csv") + workload;
  commands.push_back(good);                                  // no --fabric
  commands.push_back(good + " --fabric ib --compute sweeps/measured/2026-11-23");
  commands.push_back(good + " --fabric ib --compute model:tpu");
  commands.push_back(good + " --fabric ib --held-out " + (dir_ / "one_row.csv").string());
  commands.push_back(good + " --fabric ib --observed " + (dir_ / "absent.csv").string());
  commands.push_back(project() + " --held-out " + fixture("ndv5_qwen7b.csv") + workload +
                     " --fabric ib-ndr-8x400 --compute model:h100");
  for (const std::string& command : commands) {
    const fs::path out = dir_ / "p.jsonl";
    const Outcome r = run(command + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << command;
    EXPECT_FALSE(fs::exists(out)) << command;
    EXPECT_FALSE(fs::exists(out.string() + ".partial")) << command;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
