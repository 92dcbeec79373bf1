// HSDP, DDP, tensor/sequence parallel, MoE meshes and hierarchical all-to-all through the replay
// executable: bad input exits 2 with one line; the dry-run JSON carries the new groups; host
// ranks (MPI backend, 2 and 4 ranks) replay each plan end to end with -c data checks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using namespace cli_test;

const std::string kTiny = "--model sweeps/models/replay-tiny.json";
const std::string kTinyMoe = "--model tests/fixtures/replay-tiny-moe.json";

std::string replay() { return (bin_dir() / "replay").string(); }

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

class ReplayParallel : public ScratchDirTest {
 protected:
  nlohmann::json dry_run(const std::string& args) {
    const Outcome o = run(replay() + " --dry-run --format json " + args);
    EXPECT_EQ(o.exit_code, 0) << args << ": " << o.err;
    return nlohmann::json::parse(o.out);
  }
  // The per-group totals of a dry run, by group name.
  std::map<std::string, nlohmann::json> groups(const nlohmann::json& j) {
    std::map<std::string, nlohmann::json> out;
    for (const auto& g : j["groups"]) out[g["group"]] = g;
    return out;
  }
  // Replays on host ranks with data checks; returns stdout.
  std::string replay_checked(int ranks, const std::string& args) {
    const Outcome o = run(mpirun_command() + " -np " + std::to_string(ranks) + " " + replay() +
                          " --backend mpi --steps 1 --warmup 0 --seq 32 -c " + args);
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.out << o.err;
    EXPECT_NE(o.out.find("distinct collectives verified exactly"), std::string::npos) << o.out;
    return o.out;
  }
};

TEST_F(ReplayParallel, BadInputExitsTwoWithOneLine) {
  const char* bad[] = {
      "--dry-run --tp 8",             // 28 heads of Qwen2.5-7B
      "--dry-run --tp 3 --world 24",  // 8 GPUs per node
      "--dry-run --tp 16 --world 16 --gpus-per-node 16 --model llama-3-70b",  // 8 KV heads
      "--dry-run --model mixtral-8x7b --mesh 2x4x2 --world 8",
      "--dry-run --model mixtral-8x7b --mesh 2x4x2x1 --world 16",
      "--dry-run --model mixtral-8x7b --ep 8 --world 8 --gpus-per-node 1 --a2a hierarchical",
      "--dry-run --model mixtral-8x7b --ep 8 --world 8 --a2a hierarchical",  // one node
      "--dry-run --model mixtral-8x7b --ep 8 --world 8 --a2a ring",
      "--dry-run --model mixtral-8x7b --ep 8 --world 8 --a2a-dtype fp32",
      "--dry-run --sharding hybrid --shard-group 5",
      "--dry-run --shard-group 4",
      "--dry-run --plan ddp --grad-compression powersgd:x",
      "--dry-run --plan ddp --bucket-cap-mb 0",
      "--dry-run --param-dtype fp8",
      "--dry-run --distributed-optimizer",  // fsdp1 shards its states already
      "--dry-run --plan ddp --ddp-bucket-size 1000000",
      "--dry-run --plan ddp --distributed-optimizer --ddp-bucket-size -5",
      "--nccl-algo warp",
      "--nccl-proto ll256",
  };
  for (const char* args : bad) {
    const Outcome o = run(replay() + " " + args);
    EXPECT_EQ(o.exit_code, 2) << args << ": " << o.err;
    EXPECT_EQ(lines(o.err), 1) << args << ": " << o.err;
  }
}

TEST_F(ReplayParallel, DryRunJsonCarriesTheGroups) {
  // HSDP, Qwen2.5-7B at world 16 (2 nodes of 8): the layer shard group of 8, 2 replicas.
  auto g = groups(dry_run("--model qwen2.5-7b --world 16 --sharding hybrid"));
  EXPECT_EQ(g["shard"]["size"], 8);
  EXPECT_EQ(g["replicate"]["size"], 2);
  EXPECT_EQ(g["replicate"]["ops"], 29);  // one all-reduce per unit
  // Layer: 233,057,792 elements / 8 per rank, bf16.
  EXPECT_EQ(
      dry_run("--model qwen2.5-7b --world 16 --sharding hybrid")["units"][1]["allreduce_bytes"],
      233057792ull / 8 * 2);
  // TP + SP on Qwen2.5-7B, 4-way: 12 TP collectives per layer + 4, each 4096 x 3584 bf16.
  auto t = dry_run("--model qwen2.5-7b --world 16 --tp 4 --layers 3");
  EXPECT_EQ(groups(t)["tp"]["ops"], 12 * 3 + 4);
  EXPECT_EQ(groups(t)["tp"]["bytes"], (12ull * 3 + 4) * 4096 * 3584 * 2);
  EXPECT_EQ(t["tp"], 4);
  EXPECT_EQ(t["shard_group"], 4);
  // DDP: the bucket all-reduces and the buffers' broadcast before the forward, on the world.
  auto d = dry_run("--model qwen2.5-7b --world 8 --plan ddp");
  EXPECT_EQ(d["totals"]["allgathers"], 0);
  EXPECT_EQ(d["totals"]["allreduces"], 142);
  EXPECT_EQ(d["totals"]["broadcasts"], 1);
  EXPECT_EQ(d["totals"]["broadcast_bytes"], 256);  // inv_freq: 64 fp32
  EXPECT_EQ(groups(d)["world"]["ops"], 143);
  // Mixtral on a 2x4x2 mesh: the groups a dp_shard x ep x tp run uses.
  auto m = groups(dry_run("--model mixtral-8x7b --world 16 --mesh 2x4x2 --layers 2 --seq 1024"));
  EXPECT_EQ(m["shard"]["size"], 8);
  EXPECT_EQ(m["expert"]["size"], 4);
  EXPECT_EQ(m["data_parallel"]["size"], 2);
  EXPECT_EQ(m["tp"]["size"], 2);
}

// The distributed optimizer's buckets, Nemotron-4 15B at TP 4 on 16 GPUs (DP 4): lm_head alone
// (64,000 x 6,144 a TP rank), the final norm with layer 31's norms, down and up (75,534,336),
// ..., embed_tokens with layer 0's norms and attention last; all of a TP rank's 3,907,792,896
// parameters (no padding: every size divides by 128) gathered and reduce-scattered once, over
// the 4 data-parallel ranks of a TP index.
TEST_F(ReplayParallel, DistributedOptimizerDryRunPrintsTheBuckets) {
  const std::string args =
      "--dry-run --model nemotron-4-15b --world 16 --tp 4 --plan ddp --distributed-optimizer";
  const Outcome text = run(replay() + " " + args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("bucket0                                 393,216,000      196,608,000"
                          "        786,432,000        786,432,000                0"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("bucket1                                  75,534,336"), std::string::npos);
  EXPECT_NE(text.out.find("# optimizer: adamw-fused (auto: Megatron's DistributedOptimizer"),
            std::string::npos);
  const nlohmann::json j = dry_run(args.substr(std::string("--dry-run ").size()));
  ASSERT_EQ(j["units"].size(), 65u);
  auto g = groups(j);
  EXPECT_EQ(g["replicate"]["size"], 4);
  EXPECT_EQ(g["replicate"]["ops"], 130);  // a reduce-scatter and an all-gather per bucket
  EXPECT_EQ(g["replicate"]["bytes"], 2ull * 3907792896 * 2);
  EXPECT_EQ(j["totals"]["allreduces"], 0);
  EXPECT_EQ(j["totals"]["broadcasts"], 0);  // Megatron's DDP broadcasts no buffers
}

TEST_F(ReplayParallel, DistributedOptimizerReplaysOnFourRanksWithModelledCompute) {
  const std::string out = replay_checked(
      4, kTiny + " --plan ddp --distributed-optimizer --ddp-bucket-size 2000000 --tp 2"
                 " --gpus-per-node 2 --layers 2 --micro-batches 2 --compute model:h100");
  EXPECT_NE(out.find("ag.fwd.bucket0"), std::string::npos) << out;
  EXPECT_NE(out.find("rs.bucket0"), std::string::npos) << out;
}

TEST_F(ReplayParallel, TensorAndSequenceParallelReplaysOnTwoRanks) {
  const std::string out = replay_checked(2, kTiny + " --tp 2 --layers 2");
  EXPECT_NE(out.find("tp.ag.fwd"), std::string::npos);
  replay_checked(2, kTiny + " --tp 2 --layers 1 --no-sequence-parallel");
}

TEST_F(ReplayParallel, HsdpReplaysOnFourRanksAsTwoNodes) {
  const std::string out =
      replay_checked(4, kTiny + " --sharding hybrid --gpus-per-node 2 --layers 2");
  EXPECT_NE(out.find("replicate"), std::string::npos);
}

TEST_F(ReplayParallel, DdpAndPowerSgdReplayOnTwoRanks) {
  replay_checked(2, kTiny + " --plan ddp --layers 2 --bucket-cap-mb 1");
  replay_checked(2, kTiny + " --plan ddp --layers 1 --grad-compression powersgd:2");
}

TEST_F(ReplayParallel, TpWithHsdpAndHierarchicalFp8AllToAllReplayOnFourRanks) {
  replay_checked(4,
                 kTiny + " --tp 2 --sharding hybrid --shard-group 1 --gpus-per-node 2 --layers 1");
  const std::string out = replay_checked(4, kTinyMoe +
                                                " --ep 4 --gpus-per-node 2 --a2a hierarchical "
                                                "--a2a-dtype fp8 --routing zipf:1");
  EXPECT_NE(out.find("expert_rail"), std::string::npos);
  replay_checked(4, kTinyMoe + " --mesh 1x2x2 --gpus-per-node 4");
}

TEST_F(ReplayParallel, NcclAlgoIsRecordedInRunMetadata) {
  const fs::path results = dir_ / "r.jsonl";
  const Outcome o = run(
      mpirun_command() + " -np 2 " + replay() + " --backend mpi --steps 1 --warmup 0 --seq 32 " +
      kTiny + " --layers 1 --nccl-algo ring,tree --nccl-proto simple --out " + results.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json first =
      nlohmann::json::parse(slurp(results).substr(0, slurp(results).find('\n')));
  EXPECT_EQ(first["run"]["nccl_algo_asked"], "ring,tree");
  EXPECT_EQ(first["run"]["nccl_proto_asked"], "simple");
}

}  // namespace
}  // namespace collreplay
