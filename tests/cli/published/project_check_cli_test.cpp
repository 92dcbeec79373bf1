// `project --check` over the committed published-throughput fixtures (tests/fixtures/published):
// every series gets its rows and a verdict, the first points their absolute tokens/s per GPU, and
// the exit code says whether every series is within its band (0) or not (1); a malformed fixture
// exits 2 with one line and no table. Until the mechanisms of issue 37 are in the projection,
// several series are out of band: this test holds the check's shape, not its verdict.
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
  EXPECT_NE(r.out.find("of 15 series pass"), std::string::npos) << r.out;
  // Exit 1 exactly when some series failed, and each failure is named.
  const bool failed = r.out.find("# FAILED ") != std::string::npos;
  EXPECT_EQ(r.exit_code, failed ? 1 : 0) << r.out;
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
