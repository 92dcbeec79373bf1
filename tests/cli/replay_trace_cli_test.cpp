// replay --trace and project --trace as a user runs them: the dry run lists the imported
// collectives and compute; a trace the importer cannot use, with or without --dry-run, is exit 2
// with one line naming what is missing.
#include <gtest/gtest.h>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string replay() { return (bin_dir() / "replay").string(); }
std::string fixture(const std::string& sub) { return test_support::fixtures("traces", sub); }

class ReplayTraceCli : public ScratchDirTest {
 protected:
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
};

TEST_F(ReplayTraceCli, DryRunListsCollectivesAndCompute) {
  const Outcome r = run(replay() + " --dry-run --seq 512 --trace " +
                        fixture("q05_small/rank0.trace.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 of 2, NVIDIA H100 80GB HBM3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("8 collectives"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all_gather 272271104 B bf16 world"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reduce_scatter 29824768 B bf16 world"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compute.opt."), std::string::npos) << r.out;
}

TEST_F(ReplayTraceCli, BadTracesExitTwoWithOneLine) {
  write("notjson.json", "{oops");
  write("nogpu.json", R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm",
                          "ts": 1, "dur": 2}]})");
  write("nosize.json", R"({"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name":
      "cudaLaunchKernel", "ts": 1, "dur": 1, "tid": 5, "args": {"correlation": 7}},
      {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL", "ts": 3, "dur": 5,
       "args": {"correlation": 7, "Collective name": "_allgather_base", "dtype": "BFloat16"}}]})");
  const std::pair<std::string, std::string> cases[] = {
      {(dir_ / "notjson.json").string(), "not JSON"},
      {(dir_ / "nogpu.json").string(), "no GPU kernels"},
      {(dir_ / "nosize.json").string(), "'In msg nelems'"},
      {(dir_ / "missing.json").string(), "cannot read trace file"},
  };
  for (const auto& [path, names] : cases)
    for (const char* mode : {" --dry-run", ""}) {
      const Outcome r = run(replay() + mode + " --trace " + path);
      EXPECT_EQ(r.exit_code, 2) << path << mode << ": " << r.err;
      EXPECT_EQ(count_lines(r.err), 1) << r.err;
      EXPECT_NE(r.err.find(names), std::string::npos) << r.err;
    }
}

TEST_F(ReplayTraceCli, TraceAndScheduleExcludeEachOther) {
  const Outcome r = run(replay() + " --dry-run --schedule x.json --trace " +
                        fixture("q05_1r/rank0.trace.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST_F(ReplayTraceCli, ProjectTakesATrace) {
  const Outcome r = run((bin_dir() / "project").string() + " --seq 512 --trace " +
                        fixture("q05_small/rank0.trace.json") +
                        " --fabric eth-10g --compute model:h100@0.5 --nodes 1,2,4 "
                        "--gpus-per-node 1 --fabrics-file " +
                        (bin_dir().parent_path().parent_path() / "sweeps/fabrics.tsv").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("trace:"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(r.out), 7) << r.out;  // three header lines, three node counts, the tipping point
}

}  // namespace
}  // namespace collreplay::cli_test
