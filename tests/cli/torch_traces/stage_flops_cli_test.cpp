// A pipeline traced per rank (the torch_pipeline fixture): its stages' work differs (stage 1
// holds the LM head and the loss, about 9x stage 0's FLOPs). project --trace projects every
// rank and its step is the slowest stage's; project and replay count TFLOP/s and MFU per GPU
// from the mean of the stages' FLOPs, as the job's FLOPs over its GPUs.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

using nlohmann::json;

const std::string kPipeline = test_support::fixtures("traces", "torch_pipeline/rank%d.trace.json");
// The fixture's step: 4 micro-batches of 2 x 2048 tokens.
const std::string kTokens = " --micro-batch 8 --seq 2048";

struct TracedRank {
  double compute_ms = 0;
  double tflop = 0;
};

class StageFlops : public ScratchDirTest {
 protected:
  // What the importer reads from `rank`'s trace: its GPU compute and its FLOPs from shapes.
  TracedRank traced_rank(int rank) {
    const Outcome r = run((bin_dir() / "replay").string() + " --dry-run --trace " + kPipeline +
                          kTokens + " --world 2 --rank " + std::to_string(rank));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    TracedRank t;
    if (std::regex_search(r.out, m, std::regex(R"(GPU compute ([0-9.]+) ms)")))
      t.compute_ms = std::stod(m[1]);
    if (std::regex_search(r.out, m, std::regex(R"(([0-9.]+) TFLOP from traced shapes)")))
      t.tflop = std::stod(m[1]);
    EXPECT_GT(t.compute_ms, 0) << r.out;
    EXPECT_GT(t.tflop, 0) << r.out;
    return t;
  }
};

TEST_F(StageFlops, ProjectStepIsTheSlowestStagesAndItsFlopsTheStagesMean) {
  const TracedRank first = traced_rank(0), last = traced_rank(1);
  ASSERT_GT(last.compute_ms, 2 * first.compute_ms);
  const std::string out = (dir_ / "p.jsonl").string();
  const Outcome r = run((bin_dir() / "project").string() + " --trace " + kPipeline + kTokens +
                        " --nodes 1 --gpus-per-node 2 --fabric eth-10g --compute model:h100@0.5" +
                        " --fabrics-file " +
                        (bin_dir().parent_path().parent_path() / "sweeps/fabrics.tsv").string() +
                        " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int rows = 0;
  for (const json& record : read_jsonl(out))
    if (record.contains("tflops_per_gpu")) {
      const double step_ms = record["step_ms"].get<double>();
      EXPECT_GE(step_ms, last.compute_ms) << record.dump();
      // The dry run prints 4 significant digits.
      const double mean_flops = (first.tflop + last.tflop) / 2 * 1e12;
      EXPECT_NEAR(record["tflops_per_gpu"].get<double>() * step_ms * 1e9, mean_flops,
                  mean_flops * 2e-3)
          << record.dump();
      ++rows;
    }
  EXPECT_EQ(rows, 1);
}

TEST_F(StageFlops, ReplayCountsTheStagesMeanFlops) {
  const TracedRank first = traced_rank(0), last = traced_rank(1);
  const std::string out = (dir_ / "r.jsonl").string();
  const Outcome r = run(mpirun_command() + " -np 2 " + (bin_dir() / "replay").string() +
                        " --backend mpi --compute model:h100 --steps 1 --warmup 0 --timeout 60" +
                        kTokens + " --trace " + kPipeline + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double mean_flops = (first.tflop + last.tflop) / 2 * 1e12;
  int rows = 0;
  for (const json& record : read_jsonl(out))
    if (record.contains("model_flops_per_step")) {
      EXPECT_NEAR(record["model_flops_per_step"].get<double>(), mean_flops, mean_flops * 2e-3)
          << record.dump();
      ++rows;
    }
  EXPECT_GE(rows, 1);
}

}  // namespace
}  // namespace collreplay::cli_test
