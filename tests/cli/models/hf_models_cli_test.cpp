// replay, project and advise take a Hugging Face config.json as published, or its folder: the
// dry run prints the published totals; a config of an unknown family is one line, exit 2.
#include <gtest/gtest.h>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

using namespace cli_test;

std::string bin(const char* program) { return (bin_dir() / program).string(); }

class HfModelsCli : public ScratchDirTest {};

TEST_F(HfModelsCli, DryRunPrintsPublishedTotalsAndActive) {
  const Outcome qwen3 =
      run(bin("replay") + " --dry-run --model tests/fixtures/hf/Qwen3-30B-A3B/config.json");
  ASSERT_EQ(qwen3.exit_code, 0) << qwen3.err;
  EXPECT_NE(qwen3.out.find("params 30,532,122,624 (30.5B), active 3,353,032,704 (3.3B)"),
            std::string::npos)
      << qwen3.out.substr(qwen3.out.size() > 2000 ? qwen3.out.size() - 2000 : 0);
  const Outcome deepseek = run(bin("replay") + " --dry-run --model tests/fixtures/hf/DeepSeek-V3");
  ASSERT_EQ(deepseek.exit_code, 0) << deepseek.err;
  EXPECT_NE(deepseek.out.find("params 671,026,404,352 (671.0B), active 37,552,282,624 (37.5B)"),
            std::string::npos);
}

TEST_F(HfModelsCli, FolderAndCatalogGiveTheSameSchedule) {
  const std::string args = " --dry-run --format json --plan fsdp2 --world 16 --layers 4";
  const Outcome folder = run(bin("replay") + args + " --model tests/fixtures/hf/Qwen2.5-7B");
  const Outcome catalog = run(bin("replay") + args + " --model qwen2.5-7b");
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  auto a = nlohmann::json::parse(folder.out), b = nlohmann::json::parse(catalog.out);
  EXPECT_EQ(a["model"], "Qwen2.5-7B");
  a["model"] = b["model"];
  EXPECT_EQ(a, b);
}

TEST_F(HfModelsCli, UnknownFamilyIsOneLineExitTwoEverywhere) {
  const fs::path config = dir_ / "mpt-7b" / "config.json";
  fs::create_directories(config.parent_path());
  std::ofstream(config) << R"({"model_type": "mpt", "d_model": 4096, "n_layers": 32})";
  for (const std::string& program : {bin("replay") + " --dry-run", bin("project") + " --nodes 1 --fabric ib-ndr-8x400 --compute model:h100@0.4",
                                     bin("advise") + " --nodes 1"}) {
    const Outcome o = run(program + " --model " + config.parent_path().string());
    EXPECT_EQ(o.exit_code, 2) << program << ": " << o.err;
    EXPECT_EQ(count_lines(o.err), 1) << program << ": " << o.err;
    EXPECT_NE(o.err.find("model_type 'mpt' is not supported"), std::string::npos) << o.err;
  }
}

TEST_F(HfModelsCli, GroupedExpertsRunAsOneBatchedGemmPerProjection) {
  const std::string args =
      " --dry-run --format json --model tests/fixtures/hf/Qwen3-30B-A3B --layers 1 --seq 1024";
  const Outcome grouped = run(bin("replay") + args + " --experts grouped");
  const Outcome looped = run(bin("replay") + args);
  ASSERT_EQ(grouped.exit_code, 0) << grouped.err;
  ASSERT_EQ(looped.exit_code, 0) << looped.err;
  const auto g = nlohmann::json::parse(grouped.out), l = nlohmann::json::parse(looped.out);
  // The same routed rows through the same weights: FLOPs agree to the mean-row rounding.
  const double gf = g["totals"]["flops"].get<double>(), lf = l["totals"]["flops"].get<double>();
  EXPECT_NEAR(gf / lf, 1.0, 0.01);
  // No host syncs in the grouped experts (transformers' loop syncs for every expert it visits).
  const auto syncs = [](const nlohmann::json& j) {
    return j["totals"]["kernels"]["forward"]["syncs"].get<std::uint64_t>();
  };
  EXPECT_LT(syncs(g), syncs(l));
  EXPECT_NE(grouped.out.find("argsort by expert"), std::string::npos);
  EXPECT_EQ(looped.out.find("argsort by expert"), std::string::npos);
}

}  // namespace
}  // namespace collreplay
