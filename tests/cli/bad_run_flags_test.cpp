// Values no run can use are refused alike by every program that takes them: replay with and
// without --dry-run, each *_perf program and preflight exit 2 with one line naming the flag and
// leave no file (project's --compute is in project_cli_test). (A dry run that accepted `--dilate 0` would print a schedule for a run that never starts.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;

const std::string kTinyModel = "--model sweeps/models/replay-tiny.json --layers 1 --seq 32";

struct BadFlag {
  std::string args;
  std::string names;  // what the one line must mention
};

class BadRunFlags : public ScratchDirTest, public ::testing::WithParamInterface<BadFlag> {};

TEST_P(BadRunFlags, EveryProgramExitsTwoWithOneLineAndNoFile) {
  const BadFlag& bad = GetParam();
  const std::vector<std::string> programs = {
      "replay --dry-run --world 2 " + kTinyModel,  "replay --backend mpi " + kTinyModel,
      "all_gather_perf --backend mpi -b 1K -e 1K", "reduce_scatter_perf --backend mpi -b 1K -e 1K",
      "alltoall_perf --backend mpi -b 1K -e 1K",   "alltoallv_perf --backend mpi -b 1K -e 1K",
      "all_reduce_perf --backend mpi -b 1K -e 1K"};
  for (const std::string& program : programs) {
    const std::string command =
        (bin_dir() / program).string() + " --out " + (dir_ / "r.jsonl").string() + " " + bad.args;
    const Outcome o = run(command);
    EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.out << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << command << "\n" << o.err;
    EXPECT_NE(o.err.find(bad.names), std::string::npos) << command << "\n" << o.err;
    EXPECT_TRUE(fs::is_empty(dir_)) << command << " left a file behind";
  }
}

INSTANTIATE_TEST_SUITE_P(Values, BadRunFlags,
                         ::testing::Values(BadFlag{"--monitor-interval -1", "--monitor-interval"},
                                           BadFlag{"--monitor-interval 0.01", "--monitor-interval"},
                                           BadFlag{"--metrics-port 70000", "--metrics-port"},
                                           BadFlag{"--dilate 0", "--dilate"},
                                           BadFlag{"--dilate -3", "--dilate"},
                                           BadFlag{"--compute model:z80", "'z80'"},
                                           BadFlag{"--compute abacus", "--compute 'abacus'"},
                                           BadFlag{"--transport pigeon", "'pigeon'"},
                                           BadFlag{"--fabric eth-7g", "eth-7g"}));

// --nccl-algo and --nccl-proto are replay's: the same refusal with --dry-run as in a run.
TEST_F(ScratchDirTest, ReplayRefusesAnUnknownNcclChoiceInADryRunAsInARun) {
  for (const std::string& bad :
       {std::string("--nccl-algo fastest"), std::string("--nccl-proto fast")})
    for (const std::string& mode :
         {std::string("--dry-run --world 2"), std::string("--backend mpi")}) {
      const std::string command = (bin_dir() / "replay").string() + " " + mode + " " + kTinyModel +
                                  " --out " + (dir_ / "r.jsonl").string() + " " + bad;
      const Outcome o = run(command);
      EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.err;
      EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << command << "\n" << o.err;
      EXPECT_NE(o.err.find(bad.substr(0, bad.find(' '))), std::string::npos) << o.err;
      EXPECT_TRUE(fs::is_empty(dir_)) << command << " left a file behind";
    }
}

// preflight's own flags: refused before MPI starts, one line, no --json report left behind.
TEST_F(ScratchDirTest, PreflightRefusesBadValuesWithOneLineAndNoReport) {
  for (const std::string& bad :
       {std::string("--slow-threshold -1"), std::string("--slow-threshold nan"),
        std::string("--compute-threads 0"), std::string("--backend pigeon")}) {
    const std::string command = (bin_dir() / "preflight").string() + " --backend mpi --json " +
                                (dir_ / "p.json").string() + " " + bad;
    const Outcome o = run(command);
    EXPECT_EQ(o.exit_code, 2) << command << "\n" << o.out << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << command << "\n" << o.err;
    EXPECT_NE(o.err.find(bad.substr(0, bad.find(' '))), std::string::npos) << o.err;
    EXPECT_TRUE(fs::is_empty(dir_)) << command << " left a file behind";
  }
}

}  // namespace
}  // namespace collreplay
