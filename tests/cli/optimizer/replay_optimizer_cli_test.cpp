// Which AdamW replay runs: `--dry-run` names auto's pick and why (torch 2.11's default: foreach
// over FSDP2's DTensors on CUDA); a host replay (--backend mpi) runs the for-loop and says so on
// stdout and in its step record.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using namespace cli_test;

std::string replay() { return (bin_dir() / "replay").string(); }

// The one "# optimizer: ..." line of a dry run's table.
std::string optimizer_line(const std::string& out) {
  const std::size_t at = out.find("# optimizer: ");
  if (at == std::string::npos) return "";
  return out.substr(at, out.find('\n', at) - at);
}

class ReplayOptimizer : public ScratchDirTest {};

TEST_F(ReplayOptimizer, DryRunNamesTheForeachPathTorchPicksForFsdp2) {
  const Outcome o = run(replay() + " --dry-run --plan fsdp2 --optimizer auto --model qwen2.5-0.5b "
                                   "--layers 2 --world 2 --seq 128");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(optimizer_line(o.out),
            "# optimizer: adamw-foreach (auto: torch 2.11 AdamW with neither fused nor foreach "
            "given runs foreach over DTensor parameters on CUDA)");
  // DDP hands torch nn.Parameters: foreach too.
  const Outcome ddp = run(replay() + " --dry-run --plan ddp --model qwen2.5-0.5b --layers 2 "
                                     "--world 2 --seq 128");
  ASSERT_EQ(ddp.exit_code, 0) << ddp.err;
  EXPECT_NE(optimizer_line(ddp.out).find("adamw-foreach (auto: "), std::string::npos) << ddp.out;
  EXPECT_NE(optimizer_line(ddp.out).find("over Parameter parameters"), std::string::npos);
}

TEST_F(ReplayOptimizer, DryRunOfAHostReplayNamesTheLoopAndJsonCarriesTheChoice) {
  const Outcome o = run(replay() + " --dry-run --backend mpi --plan fsdp2 --model qwen2.5-0.5b "
                                   "--layers 2 --world 2 --seq 128 --format json");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["optimizer"]["name"], "adamw-loop");
  EXPECT_NE(j["optimizer"]["why"].get<std::string>().find("on the CPU"), std::string::npos);
  const Outcome asked = run(replay() + " --dry-run --optimizer adamw-fused --model qwen2.5-0.5b "
                                       "--layers 2 --world 2 --seq 128");
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  EXPECT_EQ(optimizer_line(asked.out), "# optimizer: adamw-fused (asked for)");
}

TEST_F(ReplayOptimizer, BadOptimizerIsOneLineAndExit2) {
  const Outcome o = run(replay() + " --dry-run --optimizer sgd --model qwen2.5-0.5b --layers 1");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("unknown --optimizer 'sgd'"), std::string::npos) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
}

TEST_F(ReplayOptimizer, FusedIsAMultiTensorKernelAndItsFileNeedsTheElementSize) {
  // The saved schedule's fused AdamW is torch's multi_tensor_apply walk over 4 bf16 lists...
  const fs::path path = dir_ / "fused.json";
  const Outcome saved =
      run(replay() + " --dry-run --optimizer adamw-fused --model qwen2.5-0.5b --layers 1 "
                     "--world 2 --seq 128 --save-schedule " + path.string());
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  nlohmann::json j = nlohmann::json::parse(std::ifstream(path));
  nlohmann::json* fused = nullptr;
  for (nlohmann::json& op : j["ops"])
    if (op["phase"] == "optimizer" && op.contains("compute")) fused = &op["compute"]["kernels"][0];
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ((*fused)["kind"], "multi_tensor");
  EXPECT_EQ((*fused)["operand_element_bytes"], 2);
  // ... and a file whose multi_tensor kernel lacks it is refused: one line, exit 2.
  fused->erase("operand_element_bytes");
  std::ofstream(path) << j.dump();
  const Outcome o = run(replay() + " --dry-run --schedule " + path.string());
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.err.find("operand_element_bytes"), std::string::npos) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
}

TEST_F(ReplayOptimizer, HostReplayRecordsTheLoopItRan) {
  const fs::path out = dir_ / "results.jsonl";
  const Outcome o = run(mpirun_command() + " -np 1 " + replay() +
                        " --backend mpi --model sweeps/models/replay-tiny.json --plan fsdp2 "
                        "--steps 2 --warmup 1 --out " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("# optimizer: adamw-loop (auto: "), std::string::npos) << o.out;
  nlohmann::json step;
  for (const nlohmann::json& r : read_jsonl(out))
    if (r["record"] == "step") step = r;
  ASSERT_FALSE(step.is_null());
  EXPECT_EQ(step["optimizer"], "adamw-loop");
  EXPECT_EQ(step["plan"], "fsdp2");
  EXPECT_EQ(step["ep"], 1);
  EXPECT_EQ(step["world"], 1);
  EXPECT_EQ(step["shard_group"], 1);
}

}  // namespace
}  // namespace collreplay
