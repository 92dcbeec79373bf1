// Spawns the *_perf executables (siblings of this binary): bad input gives exit 2, exactly one
// line on stderr naming the problem and no output file; 2-rank runs check clean and write one
// JSON record per size x placement.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "collectives/backend.hpp"
#include "tests/cli/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

using namespace cli_test;

class PerfCli : public ScratchDirTest {
 protected:
  // Bad input: exit 2, one stderr line containing `names`, nothing left in the directory.
  void expect_usage_error(const std::string& args, const std::string& names) {
    const fs::path out = dir_ / "results.jsonl";
    const Outcome o =
        run((bin_dir() / "all_gather_perf").string() + " --out " + out.string() + " " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(names), std::string::npos) << args << "\n" << o.err;
    EXPECT_TRUE(fs::is_empty(dir_)) << args << " left a file behind";
  }

};

TEST_F(PerfCli, UnknownFlag) { expect_usage_error("--frobnicate 3", "--frobnicate"); }
TEST_F(PerfCli, UnknownBenchmarkFlag) {
  expect_usage_error("--benchmark_frobnicate=1", "--benchmark_frobnicate");
}
TEST_F(PerfCli, MinAboveMax) { expect_usage_error("-b 16M -e 1K", "larger than -e"); }
TEST_F(PerfCli, UnknownDtype) { expect_usage_error("-d int8", "unknown dtype 'int8'"); }
TEST_F(PerfCli, NegativeSize) { expect_usage_error("-b -1K -e 1M", "negative"); }
TEST_F(PerfCli, OverflowingSize) { expect_usage_error("-e 99999999999999999999", "too large"); }
TEST_F(PerfCli, SizeBeyondMemory) { expect_usage_error("--backend mpi -b 1T -e 1T", "needs"); }
TEST_F(PerfCli, BadUnit) { expect_usage_error("-e 4Q", "unknown unit"); }
TEST_F(PerfCli, BadReport) { expect_usage_error("--report median", "--report"); }

TEST_F(PerfCli, NcclWithoutGpu) {
  if (visible_gpu_count() > 0) GTEST_SKIP() << "a GPU is visible: --backend nccl is valid here";
  expect_usage_error("--backend nccl -b 1K -e 1K", "--backend nccl");
}

TEST_F(PerfCli, UnwritableOut) {
  const Outcome o = run((bin_dir() / "all_gather_perf").string() +
                        " --backend mpi -b 1K -e 1K --out /nonexistent-dir/r.jsonl");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find("/nonexistent-dir/r.jsonl"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists("/nonexistent-dir"));
}

// A 2-rank run of each executable: table with 0 wrong, one JSON record per size x placement.
class PerfRun : public PerfCli, public ::testing::WithParamInterface<const char*> {};

TEST_P(PerfRun, TwoRanksCheckCleanAndWriteRecords) {
  const std::string exe = GetParam();
  const fs::path out = dir_ / (exe + ".jsonl");
  const std::string extra = exe == "alltoallv" ? " --skew zipf:1.2 --seed 5" : "";
  const Outcome o = run(mpirun_command() + " -np 2 " + (bin_dir() / (exe + "_perf")).string() +
                        " --backend mpi -b 1K -e 64K -f 4 -n 3 -w 1 -d bf16 --timeout 60 --out " +
                        out.string() + extra);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("# Avg bus bandwidth"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Rank  1 on"), std::string::npos) << o.out;
  const bool in_place = exe != "alltoallv";
  std::ifstream in(out);
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    for (const char* field : {"op", "bytes", "count", "dtype", "ranks", "nodes", "time_us",
                              "algbw_GBps", "busbw_GBps", "wrong", "backend", "transport", "run"})
      EXPECT_TRUE(r.contains(field)) << field << " missing in " << line;
    EXPECT_EQ(r["wrong"], 0);
    EXPECT_EQ(r["ranks"], 2);
    EXPECT_EQ(r["dtype"], "bf16");
    EXPECT_EQ(r["backend"], "mpi");
    EXPECT_EQ(r["run"]["schema_version"], 1);
    EXPECT_EQ(r["run"]["hosts"].size(), 2u);
    ++records;
  }
  EXPECT_EQ(records, 4 * (in_place ? 2 : 1));  // 1K, 4K, 16K, 64K
}

INSTANTIATE_TEST_SUITE_P(Executables, PerfRun,
                         ::testing::Values("all_gather", "reduce_scatter", "alltoall", "alltoallv",
                                           "all_reduce"));

}  // namespace
}  // namespace collreplay
