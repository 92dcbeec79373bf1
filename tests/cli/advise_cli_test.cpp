// Runs build/bin/advise as a subprocess: the table and one JSONL record per layout with the agreed
// fields and ranks; the measured eth-1g run (bench/RESULTS.md, "HSDP against FULL_SHARD": 2
// emulated nodes x 2 ranks, Qwen2.5-0.5B with 4 layers, micro-batch 1 x 4096, modeled H100) where
// HSDP beat FULL_SHARD 2.0-2.4x; memory refusals; bad input exits 2 with one line.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string advise() { return (bin_dir() / "advise").string(); }

// The parallelism_compare.sh setup, as replay ran it there.
constexpr const char* kEth1g =
    " --model qwen2.5-0.5b --layers 4 --micro-batch 1 --seq 4096 --gpus-per-node 2 --nodes 2"
    " --fabric eth-1g --compute model:h100";

class AdviseCli : public ScratchDirTest {};

TEST_F(AdviseCli, WritesOneRankedRecordPerLayout) {
  const fs::path out = dir_ / "a.jsonl";
  const Outcome r = run(advise() + kEth1g + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank  layout"), std::string::npos) << r.out;
  const std::vector<nlohmann::json> records = read_jsonl(out);
  ASSERT_GE(records.size(), 10u);
  int fitting = 0;
  for (const nlohmann::json& rec : records) {
    for (const char* key : {"layout", "rank", "fits", "memory_per_gpu_bytes", "step_ms",
                            "tokens_per_s", "exposed_comm_ms", "reason"})
      EXPECT_TRUE(rec.contains(key)) << key << " in " << rec.dump();
    EXPECT_EQ(rec["record"], "advice");
    if (rec["fits"].get<bool>()) {
      EXPECT_EQ(rec["rank"], ++fitting);  // best first, 1, 2, 3, ...
      EXPECT_EQ(rec["reason"], "");
      EXPECT_GT(rec["tokens_per_s"].get<double>(), 0);
    } else {
      EXPECT_TRUE(rec["rank"].is_null());
      EXPECT_NE(rec["reason"], "");
    }
  }
  EXPECT_GT(fitting, 0);
  // A dense model has no experts to spread, and 2 GPUs per node cannot hold tp 4.
  bool ep_refused = false, tp4_refused = false;
  for (const nlohmann::json& rec : records) {
    ep_refused |= rec["layout"] == "ep2+fsdp" && !rec["fits"].get<bool>() &&
                  rec["step_ms"].is_null() &&
                  rec["reason"].get<std::string>().find("dense") != std::string::npos;
    tp4_refused |= rec["layout"] == "tp4" &&
                   rec["reason"].get<std::string>().find("exceeds 2 GPUs") != std::string::npos;
  }
  EXPECT_TRUE(ep_refused);
  EXPECT_TRUE(tp4_refused);
}

TEST_F(AdviseCli, RanksHsdpAboveFullShardOnTheMeasuredEth1gCluster) {
  const fs::path out = dir_ / "a.jsonl";
  ASSERT_EQ(run(advise() + kEth1g + " --out " + out.string()).exit_code, 0);
  auto find = [&](const std::string& layout, bool recompute) {
    for (const nlohmann::json& rec : read_jsonl(out))
      if (rec["layout"] == layout && rec["recompute"] == recompute) return rec;
    ADD_FAILURE() << layout << " not advised";
    return nlohmann::json{};
  };
  for (bool recompute : {true, false}) {  // replay's run had recompute (its default)
    const nlohmann::json hsdp = find("hsdp", recompute), fsdp = find("fsdp", recompute);
    ASSERT_TRUE(hsdp["fits"].get<bool>() && fsdp["fits"].get<bool>());
    EXPECT_LT(hsdp["rank"].get<int>(), fsdp["rank"].get<int>());
    // Measured 2.0-2.4x: HSDP keeps its gathers on the node and sends one all-reduce across.
    EXPECT_GT(hsdp["tokens_per_s"].get<double>(), 1.5 * fsdp["tokens_per_s"].get<double>());
  }
}

// Every layout that fits 2 nodes of eth-1g leaves its layers' communication exposed: each says so
// beside its rank, in the table and in its record, rather than ranking silently.
TEST_F(AdviseCli, AFittingLayoutWhoseHeadroomIsNegativeSaysSo) {
  const fs::path out = dir_ / "a.jsonl";
  const Outcome r = run(advise() + kEth1g + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int fitting = 0;
  for (const nlohmann::json& rec : read_jsonl(out)) {
    if (rec["record"] != "advice" || !rec["fits"].get<bool>()) continue;
    ++fitting;
    const bool negative = rec["headroom_ms"].get<double>() < 0;
    EXPECT_EQ(rec["note"].get<std::string>().rfind("headroom < 0", 0) == 0, negative)
        << rec["layout"] << ": " << rec["note"];
  }
  EXPECT_GT(fitting, 0);
  EXPECT_NE(r.out.find("headroom < 0: the median layer's communication outlasts its compute"),
            std::string::npos)
      << r.out;
}

TEST_F(AdviseCli, RefusesWhatDoesNotFitWithTheReason) {
  const fs::path out = dir_ / "a.jsonl";
  const Outcome r = run(advise() +
                        " --model qwen2.5-7b --micro-batch 2 --seq 2048 --gpus-per-node 8 "
                        "--nodes 2 --fabric ib-ndr-8x400 --gpu-memory-gib 40 --out " +
                        out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool ddp_refused = false;
  for (const nlohmann::json& rec : read_jsonl(out))
    if (rec["layout"] == "ddp") {
      // DDP keeps every parameter, gradient and moment: 8 B x 7.6e9 > 40 GiB.
      ddp_refused = !rec["fits"].get<bool>() && rec["rank"].is_null() &&
                    rec["memory_per_gpu_bytes"].get<double>() > 40.0 * (1ULL << 30) &&
                    rec["reason"].get<std::string>().find("needs") != std::string::npos;
      EXPECT_TRUE(ddp_refused) << rec.dump();
    }
  EXPECT_TRUE(ddp_refused);
}

// Nemotron-4 15B, 2 nodes of 8 H100s, micro-batch 1 x 4096, fp32 gradient reduction: each DDP
// layout has its distributed-optimizer twin holding the same parameters and gradients and a
// DP-th of fp32 states (12 B) where DDP keeps bf16 moments whole (4 B). TP 2 with recompute:
// 14.6 + 29.1 + 29.1 GiB under DDP does not fit an H100's usable 61.6 GiB; with the states
// sharded over the 8 data-parallel ranks (10.9 GiB) it does.
TEST_F(AdviseCli, DistributedOptimizerShardsTheStatesOfEachDdpLayout) {
  const fs::path out = dir_ / "a.jsonl";
  const Outcome r = run(advise() +
                        " --model nemotron-4-15b --micro-batch 1 --seq 4096 --gpus-per-node 8 "
                        "--nodes 2 --fabric ib-ndr-8x400 --compute model:h100 --reduce-dtype fp32"
                        " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, nlohmann::json> with_recompute;
  for (const nlohmann::json& rec : read_jsonl(out))
    if (rec["recompute"] == true) with_recompute[rec["layout"].get<std::string>()] = rec;
  for (const auto& [ddp, dp] : {std::pair{"tp2+ddp", 8}, std::pair{"tp4+ddp", 4}}) {
    const nlohmann::json& plain = with_recompute.at(ddp);
    const nlohmann::json& sharded = with_recompute.at(std::string(ddp) + "+do");
    EXPECT_EQ(sharded["plan"], "ddp");
    EXPECT_EQ(sharded["memory"]["params_bytes"], plain["memory"]["params_bytes"]);
    EXPECT_EQ(sharded["memory"]["grads_bytes"], plain["memory"]["grads_bytes"]);
    const double params = plain["memory"]["params_bytes"].get<double>() / 2;
    EXPECT_EQ(plain["memory"]["optimizer_bytes"].get<double>(), 4 * params);
    EXPECT_EQ(sharded["memory"]["optimizer_bytes"].get<double>(), 12 * params / dp);
  }
  EXPECT_FALSE(with_recompute.at("tp2+ddp")["fits"].get<bool>());
  EXPECT_TRUE(with_recompute.at("tp2+ddp+do")["fits"].get<bool>());
}

TEST_F(AdviseCli, ObservedTableGivesThePublishedFullShardThroughput) {
  // FACTS.md: Qwen2.5-7B FSDP FULL_SHARD with recompute on 8 nodes of 8 H100s over InfiniBand,
  // 414,339 tokens/s; the fit of that table (tests/fixtures/observed) must give it back.
  const fs::path out = dir_ / "a.jsonl";
  const Outcome r =
      run(advise() + " --observed " + (bin_dir() / "../../tests/fixtures/observed").string() +
          "/ndv5_qwen7b.csv --fabric ib --model qwen2.5-7b --micro-batch 2 --seq 2048"
          " --gpus-per-node 8 --nodes 8 --out " +
          out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool found = false;
  for (const nlohmann::json& rec : read_jsonl(out))
    if (rec["layout"] == "fsdp" && rec["recompute"] == true) {
      found = true;
      EXPECT_EQ(rec["fabric"], "observed:ib");
      EXPECT_NEAR(rec["tokens_per_s"].get<double>(), 414339, 0.05 * 414339);
    }
  EXPECT_TRUE(found);
}

TEST_F(AdviseCli, BadInputIsOneLineAndExitTwo) {
  const std::string out = (dir_ / "bad.jsonl").string();
  const std::string small = " --gpus-per-node 2 --fabric eth-1g --out " + out;
  for (const std::string& args :
       {" --model no-such-model --nodes 2" + small, " --model qwen2.5-0.5b --nodes 0" + small,
        " --model qwen2.5-0.5b --nodes 2 --gpus-per-node 2 --fabric no-such-fabric --out " + out,
        " --model qwen2.5-0.5b --nodes 2 --plan ddp" + small,
        " --model qwen2.5-0.5b --nodes 2 --gpu-memory-gib 0" + small,
        " --model qwen2.5-0.5b --nodes 2 --tp 2" + small,
        " --model qwen2.5-0.5b --nodes 2 --distributed-optimizer" + small,
        " --model qwen2.5-0.5b" + small}) {
    const Outcome r = run(advise() + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

}  // namespace
}  // namespace collreplay::cli_test
