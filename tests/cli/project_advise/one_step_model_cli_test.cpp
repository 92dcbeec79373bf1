// `project` and `advise` answer the IB question from one step model: the same layout on the same
// fabric gives the same tokens/s in both, `--fabric a,b` puts the fabrics side by side with their
// ratio, and a row that does not fit says so instead of a throughput.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string program(const char* name) { return (bin_dir() / name).string(); }

class OneStepModel : public ScratchDirTest {};

constexpr const char* kWorkload =
    " --model qwen2.5-0.5b --layers 2 --micro-batch 1 --seq 1024 --gpus-per-node 2"
    " --compute model:h100";

TEST_F(OneStepModel, ProjectAndAdviseGiveOneThroughputForOneLayout) {
  const fs::path p = dir_ / "p.jsonl", a = dir_ / "a.jsonl";
  ASSERT_EQ(run(program("project") + kWorkload + " --fabric eth-1g,ib-ndr-8x400 --nodes 2 --out " +
                p.string())
                .exit_code,
            0);
  ASSERT_EQ(run(program("advise") + kWorkload + " --fabric eth-1g,ib-ndr-8x400 --nodes 2 --out " +
                a.string())
                .exit_code,
            0);
  std::map<std::string, double> projected, advised;
  nlohmann::json comparison;
  for (const nlohmann::json& r : read_jsonl(p)) {
    if (r["record"] == "projection") projected[r["fabric"]] = r["tokens_per_s"].get<double>();
    if (r["record"] == "fabric_comparison") comparison = r;
  }
  for (const nlohmann::json& r : read_jsonl(a))
    if (r["layout"] == "fsdp" && r["recompute"] == true)  // project's default: recompute on
      advised[r["fabric"]] = r["tokens_per_s"].get<double>();
  ASSERT_EQ(projected.size(), 2u);
  for (const auto& [fabric, tokens] : projected) {
    ASSERT_TRUE(advised.count(fabric)) << fabric;
    EXPECT_DOUBLE_EQ(advised[fabric], tokens) << fabric;
  }
  // The side-by-side record: the later fabric over the first.
  ASSERT_FALSE(comparison.is_null());
  EXPECT_EQ(comparison["baseline"], "eth-1g");
  EXPECT_NEAR(comparison["ratio_to_baseline"]["ib-ndr-8x400"].get<double>(),
              projected["ib-ndr-8x400"] / projected["eth-1g"], 1e-9);
  EXPECT_GT(comparison["ratio_to_baseline"]["ib-ndr-8x400"].get<double>(), 1.5);
}

TEST_F(OneStepModel, ARowThatDoesNotFitHasNoThroughput) {
  const fs::path p = dir_ / "p.jsonl";
  const Outcome r = run(program("project") +
                        " --model qwen2.5-7b --micro-batch 2 --seq 2048 --gpus-per-node 8"
                        " --fabric ib-ndr-8x400 --compute model:h100 --gpu-memory-gib 8"
                        " --nodes 1,16 --out " + p.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no fit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not fit in GPU memory at node count"), std::string::npos) << r.out;
  int rows = 0;
  for (const nlohmann::json& rec : read_jsonl(p))
    if (rec["record"] == "projection") {
      ++rows;
      if (rec["nodes"] == 1) {
        EXPECT_FALSE(rec["fits"].get<bool>());
        EXPECT_TRUE(rec["tokens_per_s"].is_null());
        EXPECT_GT(rec["memory_per_gpu_bytes"].get<double>(), 8.0 * (1ULL << 30));
      }
    }
  EXPECT_EQ(rows, 2);
  // A bad memory size is one line and exit 2, dry or not.
  const Outcome bad = run(program("project") +
                          " --model qwen2.5-7b --fabric ib-ndr-8x400 --compute model:h100"
                          " --gpu-memory-gib -3 --out " + (dir_ / "bad.jsonl").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.jsonl"));
}

}  // namespace
}  // namespace collreplay::cli_test
