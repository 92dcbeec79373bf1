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
#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

using namespace cli_test;

class PerfCli : public ScratchDirTest {
 protected:
  // Bad input: exit 2, one stderr line containing `names`, nothing left in the directory.
  void expect_usage_error(const std::string& args, const std::string& names,
                          const std::string& exe = "all_gather_perf") {
    const fs::path out = dir_ / "results.jsonl";
    const Outcome o = run((bin_dir() / exe).string() + " --out " + out.string() + " " + args);
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
TEST_F(PerfCli, UnknownDtype) { expect_usage_error("-d int4", "-d int4: unknown datatype"); }
TEST_F(PerfCli, NegativeSize) { expect_usage_error("-b -1K -e 1M", "negative"); }
TEST_F(PerfCli, OverflowingSize) { expect_usage_error("-e 99999999999999999999", "too large"); }
TEST_F(PerfCli, SizeBeyondMemory) { expect_usage_error("--backend mpi -b 1T -e 1T", "needs"); }
TEST_F(PerfCli, BadUnit) { expect_usage_error("-e 4Q", "unknown unit"); }
TEST_F(PerfCli, BadReport) { expect_usage_error("--report median", "--report"); }
// hot:K is replay's routing spelling (K hot experts); the skew's old spelling names the new one.
TEST_F(PerfCli, OldHotSkewNamesHotspot) {
  expect_usage_error("--backend mpi -b 1K -e 1K --skew hot:2", "hotspot:2", "alltoallv_perf");
}

TEST_F(PerfCli, BadStable) {
  expect_usage_error("--stable 0", "--stable");
  expect_usage_error("--stable often", "--stable");
  expect_usage_error("--stable -5", "--stable");
}

// -G and -R are CUDA graphs and NCCL registration: the host backend refuses them before MPI.
TEST_F(PerfCli, GraphAndRegistrationNeedNccl) {
  expect_usage_error("--backend mpi -b 1K -e 1K -G 5", "need the nccl backend");
  expect_usage_error("--backend mpi -b 1K -e 1K -R 1", "need the nccl backend");
  if (visible_gpu_count() == 0)
    expect_usage_error("-b 1K -e 1K -G 5", "need the nccl backend");  // the default is mpi here
}
TEST_F(PerfCli, BadGraphOrRegistration) {
  expect_usage_error("-G -1", "negative");
  expect_usage_error("-R 2", "-R must be 0 or 1");
  expect_usage_error("-G 3 --stable 5", "--stable and -G");
  expect_usage_error("-I 2", "-I must be 0 or 1");
  expect_usage_error("--backend nccl -G 3 -I 1", "-I 1 times single ops");
}

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
  const std::string extra = exe == "alltoallv" ? " --skew hotspot:1 --seed 5" : "";
  const Outcome o =
      run(mpirun_command() + " -np 2 " + (bin_dir() / (exe + "_perf")).string() +
          " --backend mpi -b 1K -e 64K -f 4 -n 3 -w 1 -d bf16 --timeout 60 --progress --out " +
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
    // Per-iteration statistics: one sample per timed op, ordered, the mean inside the range.
    EXPECT_EQ(r["iterations_timed"], 3) << line;
    const double lo = r["time_min_us"], p50 = r["time_p50_us"], p95 = r["time_p95_us"],
                 hi = r["time_max_us"], mean = r["time_us"];
    EXPECT_TRUE(0 < lo && lo <= p50 && p50 <= p95 && p95 <= hi) << line;
    EXPECT_TRUE(lo <= mean && mean <= hi) << line;
    EXPECT_GE(r["time_cv"].get<double>(), 0.0) << line;
    ++records;
  }
  EXPECT_EQ(records, 4 * (in_place ? 2 : 1));  // 1K, 4K, 16K, 64K
  // --progress: the plan, then every case up to the last, on stderr.
  const std::string cases = std::to_string(records);
  EXPECT_NE(o.err.find(cases + " cases (1 KiB to 64 KiB"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("case " + cases + "/" + cases + " "), std::string::npos) << o.err;
}

// --stable stops a size early once its p50 is known; without it every -n iteration is timed.
TEST_F(PerfCli, StableStopsBeforeTheIterationCap) {
  const fs::path out = dir_ / "stable.jsonl";
  const Outcome o =
      run(mpirun_command() + " -np 2 " + (bin_dir() / "all_gather_perf").string() +
          " --backend mpi -b 4K -e 4K -n 2000 -w 10 -c 0 --stable 50 --timeout 60 --out " +
          out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out);
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    EXPECT_EQ(r["stable_pct"], 50.0);
    EXPECT_GE(r["iterations_timed"].get<int>(), 10) << line;  // never on fewer than 10 samples
    EXPECT_LT(r["iterations_timed"].get<int>(), 2000) << line;
    EXPECT_EQ(r["ops_per_sample"], 1) << line;  // the host backend times each op alone
    // Warm-up sized to need: at least the one op that pays first use, at most -w.
    EXPECT_GE(r["warmup_ops"].get<int>(), 1) << line;
    EXPECT_LE(r["warmup_ops"].get<int>(), 10) << line;
    // The interval the rule stopped on brackets the p50 and is within 50% of it.
    const double p50 = r["time_p50_us"], lo = r["time_p50_ci_lo_us"], hi = r["time_p50_ci_hi_us"];
    EXPECT_TRUE(lo <= p50 && p50 <= hi && hi - p50 <= p50 * 0.5 && p50 - lo <= p50 * 0.5) << line;
    ++records;
  }
  EXPECT_EQ(records, 2);
}

// The all_to_allv busbw under skew counts the busiest rank, so it exceeds algbw x (n-1)/n.
TEST_F(PerfCli, SkewedAllToAllvBusbwCountsTheBusiestRank) {
  const fs::path out = dir_ / "skew.jsonl";
  const Outcome o = run(mpirun_command() + " -np 4 " + (bin_dir() / "alltoallv_perf").string() +
                        " --backend mpi -b 64K -e 64K -n 2 -c 0 --skew hotspot:1 --seed 5 "
                        "--timeout 60 --out " +
                        out.string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const nlohmann::json r = nlohmann::json::parse(line);
  EXPECT_GT(r["busbw_GBps"].get<double>(), r["algbw_GBps"].get<double>() * 0.75 * 1.3) << line;
}

INSTANTIATE_TEST_SUITE_P(Executables, PerfRun,
                         ::testing::Values("all_gather", "reduce_scatter", "alltoall", "alltoallv",
                                           "all_reduce"));

}  // namespace
}  // namespace collreplay
