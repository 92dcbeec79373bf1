// `project --check` over the committed published-throughput fixtures (tests/fixtures/published):
// every series gets its rows and a verdict, the first points their absolute tokens/s per GPU, and
// the exit code says whether every series is within its band (0) or not (1); a malformed fixture
// exits 2 with one line and no table. With the mechanisms of issue 37 in the projection every
// committed series passes (`make test` runs this), the seeds' IB losses and one MPT point as
// "explained, unmatched" with their terms' numbers; a fixture out of band still exits 1.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string project() { return (bin_dir() / "project").string(); }
std::string published(const std::string& name) {
  return (bin_dir() / "../../tests/fixtures/published" / name).string();
}

class ProjectCheckCli : public ScratchDirTest {};

TEST_F(ProjectCheckCli, ChecksEverySeriesOfTheCommittedFixtures) {
  const Outcome r = run(project() + " --check " + published("a_torchtitan.csv") + " " +
                        published("c_mpt.csv") + " " + published("d_ibm_llama2.csv") + " " +
                        published("seeds_ndv5_qwen.csv"));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  for (const char* series :
       {"A-h100-eager", "A-h100-compile", "A-h200-trainy", "C-mpt-7b", "C-mpt-13b", "C-mpt-3b",
        "C-mpt-1b", "D-a100-7b", "D-a100-70b", "D-h100-7b", "D-h100-70b", "seed-qwen7b-ib",
        "seed-qwen72b-ib", "seed-qwen7b-eth", "seed-qwen72b-eth"})
    EXPECT_NE(r.out.find("\n" + std::string(series) + " "), std::string::npos) << series;
  EXPECT_NE(r.out.find("# first points"), std::string::npos);
  EXPECT_NE(r.out.find("model:a100"), std::string::npos);
  EXPECT_NE(r.out.find("# 15 of 15 series pass"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("# FAILED "), std::string::npos) << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // The seeds' first inter-node hop: explained, with the gap and the term's number.
  EXPECT_NE(r.out.find("# seed-qwen7b-ib, 2 nodes: the real step is "), std::string::npos);
  EXPECT_NE(r.out.find("than 2 x ib-ndr-8x400 explains; consistent with inter_overhead = "),
            std::string::npos)
      << r.out;
}

TEST_F(ProjectCheckCli, AFixtureOutOfBandExitsOne) {
  // The torchtitan series with its 16-node point at half the 1-node throughput: no mechanism of
  // the projection loses that on 8 x NDR, and the band names no term.
  const fs::path fixture = dir_ / "out_of_band.csv";
  std::ofstream(fixture)
      << "series,model,gpu,gpus_per_node,nodes,fabric,plan,sharding,micro_batch,grad_accum,seq,ac,"
         "reduce_dtype,tokens_per_s_per_gpu,band,source\n"
         "A,llama-3.1-8b,h100,8,1,ib-ndr-8x400,fsdp2,full,2,1,8192,yes,fp32,5762,2,test\n"
         "A,llama-3.1-8b,h100,8,16,ib-ndr-8x400,fsdp2,full,2,1,8192,yes,fp32,2881,2,test\n";
  const Outcome r = run(project() + " --check " + fixture.string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("# FAILED A: 16 nodes off by +"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# 0 of 1 series pass"), std::string::npos) << r.out;
}

TEST_F(ProjectCheckCli, AMalformedFixtureExitsTwoWithOneLine) {
  const fs::path bad = dir_ / "bad.csv";
  std::ofstream(bad) << "series,model\nx,qwen2.5-7b\n";
  const Outcome r = run(project() + " --check " + bad.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("missing column 'gpu'"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace collreplay::cli_test
