// Pipeline parallelism end to end: the dry run of Qwen2.5-72B over 4 stages of TP 2 (each
// stage's layers, its P2P bytes per micro-batch, the bubble), bad pipeline input as one line and
// exit 2 in --dry-run, and a host replay of a 2-stage pipeline under mpirun with modelled compute
// (real sends and receives, the bubble measured: the overlapped step waits for them).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using namespace cli_test;

class PipelineCli : public ScratchDirTest {
 protected:
  std::string replay() const { return (bin_dir() / "replay").string(); }
};

TEST_F(PipelineCli, DryRunPrintsStagesP2pAndBubble) {
  const Outcome o = run(replay() +
                        " --dry-run --model qwen2.5-72b --world 32 --tp 2 --pp 4 --micro-batches 8"
                        " --pp-schedule 1f1b --seq 2048");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  // micro-batch 1 x seq 2048 x hidden 8192 x 2 B, split over TP 2 by sequence parallelism.
  EXPECT_NE(o.out.find("1 x 2048 x 8192 x 2 / 2 = 16777216 B"), std::string::npos) << o.out;
  for (const std::string row : {"#     0  0-7            layers.0-19", "#     1  8-15           layers.20-39",
                                "#     3  24-31          layers.60-79"})
    EXPECT_NE(o.out.find(row), std::string::npos) << row << "\n" << o.out;
  EXPECT_NE(o.out.find("norm, head, loss"), std::string::npos);
  EXPECT_NE(o.out.find("# bubble:"), std::string::npos);
  EXPECT_NE(o.out.find("# order, stage 0: 0F0 0F1 0F2 0F3 0B0 0F4 0B1"), std::string::npos) << o.out;

  const Outcome j = run(replay() +
                        " --dry-run --format json --model qwen2.5-72b --world 32 --tp 2 --pp 4"
                        " --micro-batches 8 --seq 2048");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json p = nlohmann::json::parse(j.out)["pipeline"];
  EXPECT_EQ(p["pp"], 4);
  EXPECT_EQ(p["schedule"], "1f1b");
  ASSERT_EQ(p["stages"].size(), 4u);
  for (const auto& stage : p["stages"]) {
    EXPECT_EQ(stage["send_bytes_per_micro_batch"], 16777216);
    EXPECT_EQ(stage["recv_bytes_per_micro_batch"], 16777216);
    // Equal stages idle (pp-1)/(M+pp-1) = 27%; the last holds the head: the others wait for it.
    EXPECT_GT(stage["idle_fraction"].get<double>(), 0.2);
    EXPECT_LT(stage["idle_fraction"].get<double>(), 0.4);
  }
  EXPECT_NEAR(p["equal_stages_idle_fraction"].get<double>(), 3.0 / 11, 1e-9);
}

TEST_F(PipelineCli, BadPipelineInputIsOneLineAndExitTwo) {
  const std::string base = replay() + " --dry-run --model qwen2.5-72b ";
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--world 32 --pp 3", "--pp 3 does not divide world 32"},
           {"--world 32 --pp 4 --micro-batches 2", "needs at least as many micro-batches"},
           {"--world 32 --pp 4 --micro-batches 8 --pp-schedule interleaved:3",
            "does not divide them evenly"},
           {"--world 128 --pp 128 --micro-batches 128", "more stages than layers"},
           {"--world 32 --pp 4 --micro-batches 8 --pp-layers 20,20,20", "lists 3 stages"},
           {"--world 32 --pp-schedule gpipe", "--pp-schedule needs --pp above 1"}}) {
    const Outcome o = run(base + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out << o.err;
    EXPECT_EQ(count_lines(o.err), 1) << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
  }
}

TEST_F(PipelineCli, HostReplayRunsTheStagesWithRealSendsAndReceives) {
  const std::string out = (dir_ / "pp.jsonl").string();
  const std::string tiny = (bin_dir().parent_path().parent_path() / "sweeps/models/replay-tiny.json").string();
  const Outcome o = run(mpirun_command() + " -np 4 " + replay() +
                        " --backend mpi --compute model:h100 --model " + tiny +
                        " --seq 64 --pp 2 --micro-batches 4 --gpus-per-node 2 --steps 3"
                        " --warmup 1 --timeout 60 --out " + out);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  int sends = 0, recvs = 0;
  for (const nlohmann::json& r : read_jsonl(out)) {
    const std::string kind = r.value("kind", "");
    if (r.value("record", "") == "op" && (kind == "send" || kind == "recv")) {
      (kind == "send" ? sends : recvs)++;
      EXPECT_EQ(r["bytes"], 64 * 512 * 2);  // one micro-batch's activation (or its gradient)
      EXPECT_EQ(r["group_size"], 2);
      EXPECT_EQ(r["group_stride"], 2);
    }
    if (r.value("record", "") != "step") continue;
    EXPECT_EQ(r["pp"], 2);
    EXPECT_EQ(r["micro_batches"], 4);
    EXPECT_EQ(r["tokens_per_step"], 4 * 64 / 2);
    // Stage 0 computes alone in the compute-only pass; overlapped, it waits for its gradients.
    EXPECT_GT(r["overlapped_ms"].get<double>(), r["compute_ms"].get<double>());
  }
  // Rank 0 (stage 0) sends every micro-batch's activation and receives every gradient.
  EXPECT_EQ(sends, 4);
  EXPECT_EQ(recvs, 4);
}

// The GPU reference's pipeline plan reads its arguments before it imports torch: --help and bad
// input work on a machine without torch (a CPU test can hold them).
class PipelineReferenceScript : public PythonScriptTest {
 protected:
  PipelineReferenceScript() : PythonScriptTest("sweeps/gpu/reference/pipeline/pipeline_step.py") {}
};

TEST_F(PipelineReferenceScript, HelpAndBadInputNeedNoTorch) {
  const Outcome help = run("python3 " + script_ + " --help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("--schedule {gpipe,1f1b}"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--micro-batches"), std::string::npos);
  const Outcome bad = run("python3 " + script_ + " --model qwen2.5-0.5b --micro-batches 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pipeline_step: --micro-batches must be positive\n");
  const Outcome launcher =
      run((bin_dir().parent_path().parent_path() / "sweeps/gpu/reference/pipeline/pipeline_reference.sh").string() +
          " --help");
  EXPECT_EQ(launcher.exit_code, 0) << launcher.err;
  EXPECT_NE(launcher.out.find("sweeps/gpu/reference/pipeline/pipeline_reference.sh OUT_DIR"), std::string::npos);
}

}  // namespace
}  // namespace collreplay
