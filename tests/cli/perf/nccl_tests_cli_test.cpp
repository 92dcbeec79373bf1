// nccl-tests' command lines run as typed on the host backend: the flags its users bring are
// accepted with nccl-tests' meaning, every refusal is one line naming the flag as typed with exit
// 2 and no file, and records say what ran ("record": "perf", dtype, redop, report).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/subprocess.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;
using namespace cli_test;

class NcclTestsFlags : public ScratchDirTest {
 protected:
  // Bad input: exit 2, one stderr line starting with `starts` after the program's prefix, no file.
  void expect_refused(const std::string& exe, const std::string& args, const std::string& names) {
    const fs::path out = dir_ / "r.jsonl";
    const Outcome o =
        run((bin_dir() / exe).string() + " --backend mpi " + args + " --out " + out.string());
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(count_lines(o.err), 1) << args << "\n" << o.err;
    EXPECT_NE(o.err.find("error: " + names), std::string::npos) << args << "\n" << o.err;
    EXPECT_TRUE(fs::is_empty(dir_)) << args << " left a file behind";
  }
  // An mpirun of `exe` on the host backend; its records.
  std::vector<nlohmann::json> run_ok(const std::string& exe, int ranks, const std::string& args,
                                     Outcome* outcome = nullptr) {
    const fs::path out = dir_ / (exe + ".jsonl");
    const Outcome o =
        run(mpirun_command() + " -np " + std::to_string(ranks) + " " + (bin_dir() / exe).string() +
            " --backend mpi --timeout 60 " + args + " -J " + out.string());
    EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.out << o.err;
    if (outcome) *outcome = o;
    return o.exit_code == 0 ? read_jsonl(out) : std::vector<nlohmann::json>{};
  }
};

TEST_F(NcclTestsFlags, RefusalsNameTheFlagAsTyped) {
  const std::string ag = "all_gather_perf";
  expect_refused(ag, "-b 8 -e 1K -g 2", "-g 2: collreplay runs one GPU per rank");
  expect_refused(ag, "-b 8 -e 1K --ngpus 4", "--ngpus 4: ");
  expect_refused(ag, "-b 8 -e 1K -t 2", "-t 2: collreplay runs one thread per rank");
  expect_refused(ag, "-b 8 -e 1K -a 4", "-a 4: not 0 (rank 0)");
  expect_refused(ag, "-b 8 -e 1K -a 1 --report max", "-a 1: --report max combines");
  expect_refused(ag, "-b 8 -e 1K -o median", "-o median: not sum, prod, min, max or avg");
  expect_refused(ag, "-b 8 -e 1K --op mulsum", "--op mulsum: ");
  expect_refused(ag, "-b 8 -e 1K -z 4", "-z 4: not 0, 1, 2 or 3");
  expect_refused(ag, "-b 8 -e 1K -m 0", "-m 0: not a whole number from 1");
  expect_refused(ag, "-b 8 -e 1K -N 0", "-N 0: endless cycles are not offered");
  expect_refused(ag, "-b 8 -e 1K -C 2", "-C 2: not 0 or 1");
  expect_refused(ag, "-b 8 -e 1K -y 1", "-y 1: collreplay issues");
  expect_refused(ag, "-b 8 -e 1K -p 2", "-p 2: not 0 or 1");
  expect_refused(ag, "-b 8 -e 1K -J other.jsonl", "-J other.jsonl: --out");
  expect_refused(ag, "-b 8 -e 1K -d int4", "-d int4: unknown datatype");
  expect_refused(ag, "-b 8 -e 1K --datatype all", "--datatype all: one datatype per run");
  expect_refused(ag, "-b 8 -e 1K -f 0", "-f 0: a step factor multiplies each size");
  expect_refused(ag, "-b 8 -e 1K -S 1", "-S 1: nccl-tests' a timestamp");
  expect_refused(ag, "-b 8 -e 1K --cta_policy 1", "--cta_policy 1: nccl-tests' NCCL's CTA");
  expect_refused(ag, "-b 8 -e 1K -m 4", "-m 4: the mpi backend waits for each op");
  expect_refused(ag, "-b 8 -e 1K -T -3", "-T/--timeout '-3'");
}

// The first command line, smaller: -e 1M instead of 128M on a 2-core test machine.
TEST_F(NcclTestsFlags, AllGatherAsTypedChecksCleanAndAveragesTheRanks) {
  Outcome o;
  const auto records =
      run_ok("all_gather_perf", 2, "-b 8 -e 1M -f 2 -g 1 -t 1 -a 1 -c 1 -n 20 -w 5", &o);
  ASSERT_EQ(records.size(), 2u * 18);  // 8 B ... 1 MiB, out of place and in place
  for (const auto& r : records) {
    EXPECT_EQ(r["record"], "perf");
    EXPECT_EQ(r["report"], "avg");
    EXPECT_EQ(r["dtype"], "fp32");
    EXPECT_EQ(r["redop"], "none");
    EXPECT_EQ(r["wrong"], 0);
    EXPECT_EQ(r["checks"], 1);
    EXPECT_EQ(r["iterations_timed"], 20);
    EXPECT_EQ(r["warmup_ops"], 5);
  }
  EXPECT_EQ(records.front()["bytes"], 8);
  EXPECT_EQ(records.back()["bytes"], 1 << 20);
  EXPECT_NE(o.out.find("# Out of bounds values : 0 OK"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("report: avg"), std::string::npos) << o.out;
}

TEST_F(NcclTestsFlags, AllReduceMaxOfInt32) {
  Outcome o;
  const auto records = run_ok("all_reduce_perf", 4, "-b 8 -e 1M -f 2 -o max -d int32 -n 5", &o);
  ASSERT_EQ(records.size(), 2u * 18);
  for (const auto& r : records) {
    EXPECT_EQ(r["dtype"], "int32");
    EXPECT_EQ(r["redop"], "max");
    EXPECT_EQ(r["wrong"], 0) << r.dump();
  }
  // nccl-tests' table: the type and the reduction in their columns.
  EXPECT_NE(o.out.find("     int32     max"), std::string::npos) << o.out;
}

// Each reduction of each kind of type, on both reducing ops, checks clean over 3 ranks (rank
// counts that are not powers of two round avg's 1/3).
TEST_F(NcclTestsFlags, ReductionsCheckCleanPerTypeKind) {
  for (const char* exe : {"all_reduce_perf", "reduce_scatter_perf"})
    for (const char* type_op :
         {"-d bfloat16 -o avg", "-d half -o prod", "-d double -o avg", "-d uint8 -o avg",
          "-d int64 -o min", "-d f8e4m3 -o sum", "-d f8e5m2 -o max", "-d uint32 -o prod"}) {
      const auto records = run_ok(exe, 3, std::string("-b 3K -e 48K -f 4 -n 2 -c 2 ") + type_op);
      ASSERT_EQ(records.size(), 2u * 3) << exe << " " << type_op;
      for (const auto& r : records) EXPECT_EQ(r["wrong"], 0) << exe << " " << type_op;
    }
}

// -a 0|2|3 are rank 0's time, the fastest and the slowest rank's (rank_combine_test.cpp holds
// the arithmetic); the records say which.
TEST_F(NcclTestsFlags, AverageModesAreRecorded) {
  const char* names[] = {"rank0", "avg", "min", "max"};
  for (int a = 0; a < 4; ++a) {
    const auto records =
        run_ok("reduce_scatter_perf", 2, "-b 1K -e 1K -n 3 -a " + std::to_string(a));
    ASSERT_EQ(records.size(), 2u);
    for (const auto& r : records) EXPECT_EQ(r["report"], names[a]);
  }
  const auto records = run_ok("reduce_scatter_perf", 2, "-b 1K -e 1K -n 3 --report rank0 -a 0");
  ASSERT_EQ(records.size(), 2u);
}

// -N cycles, -z modes, -C cputime and -o on an op that does not reduce.
TEST_F(NcclTestsFlags, CyclesBlockingCputimeAndIgnoredOp) {
  Outcome o;
  auto records = run_ok("all_gather_perf", 2, "-b 1K -e 4K -f 4 -n 3 -N 3 -o max -C 1 -z 3", &o);
  ASSERT_EQ(records.size(), 3u * 2 * 2);  // 3 cycles x 2 sizes x 2 placements
  int last_cycle = 0;
  for (const auto& r : records) {
    EXPECT_EQ(r["redop"], "none");
    EXPECT_EQ(r["blocking"], 3);
    EXPECT_GT(r["time_cpu_us"].get<double>(), 0) << r.dump();
    last_cycle = std::max(last_cycle, r["repetition"].get<int>());
  }
  EXPECT_EQ(last_cycle, 2);
  EXPECT_NE(o.out.find("cputime"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("# -o max: all_gather does not reduce"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("barrier after it; time excludes it"), std::string::npos) << o.out;
  records = run_ok("alltoall_perf", 2, "-b 1K -e 1K -n 3 -z 1 -p 1 -y 0 -S 0 -m 1");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["blocking"], 1);
}

}  // namespace
}  // namespace collreplay
