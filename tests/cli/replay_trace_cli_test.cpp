// replay --trace and project --trace as a user runs them: the dry run lists the imported
// collectives and compute; a trace the importer cannot use, with or without --dry-run, is exit 2
// with one line naming what is missing.
#include <gtest/gtest.h>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/subprocess.hpp"
#include "tests/support/synthetic_trace.hpp"

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
  const Outcome r =
      run(replay() + " --dry-run --seq 512 --trace " + fixture("q05_small/rank0.trace.json"));
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

// A training loop's collectives: barrier, broadcast, all-reduce, a pipeline's send and recv, an
// uneven all_to_all_single (MoE dispatch), in two profiled steps.
std::string loop_trace(const char* last) {
  using trace::test_trace::call;
  using trace::test_trace::json;
  trace::test_trace::Builder b(0, 2);
  json bcast = call("broadcast", 1024, 1024, "[0, 1]");
  bcast["Rank"] = 1;
  json send = call("send", 256, 256, "[0, 1]"), recv = call("recv", 512, 512, "[0, 1]");
  send["Dst Rank"] = 1;
  recv["Src Rank"] = 1;
  json a2a = call("all_to_allv", 40, 24, "[0, 1]");
  a2a["In split size"] = "[1, 4]";
  a2a["Out split size"] = "[2, 1]";
  b.step(7, 0, 900).step(8, 1000, 500);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 10, 20, 5,
           call("barrier", 1, 1, "[0, 1]", "Float"));
  b.kernel("ncclDevKernel_Broadcast_RING_LL", 30, 40, 5, bcast);
  b.kernel("gemm", 50, 60, 30);
  b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 100, 110, 5,
           call("allreduce", 4096, 4096, "[0, 1]"));
  b.kernel("ncclDevKernel_SendRecv", 120, 130, 5, send);
  b.kernel("ncclDevKernel_SendRecv", 140, 150, 5, recv);
  b.kernel("ncclDevKernel_SendRecv", 160, 170, 5, a2a);
  b.kernel(last, 1010, 1020, 5, call(last, 8, 8, "[0, 1]"));
  return b.text();
}

TEST_F(ReplayTraceCli, DryRunListsEveryCollectiveOfATrainingLoop) {
  write("loop.json", loop_trace("allreduce"));
  const Outcome r =
      run(replay() + " --dry-run --trace-step 7 --trace " + (dir_ / "loop.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"ProfilerStep#7", "all_reduce 4 B fp32 world",
                           "broadcast 2048 B bf16 world root 1", "all_reduce 8192 B bf16 world",
                           "send 512 B bf16 world peer 1", "recv 1024 B bf16 world peer 1",
                           "all_to_allv 80 B bf16 world send [8,32]", "6 collectives"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  // The median of the two steps is the shorter: ProfilerStep#8, one all-reduce.
  const Outcome median = run(replay() + " --dry-run --trace " + (dir_ / "loop.json").string());
  ASSERT_EQ(median.exit_code, 0) << median.err;
  EXPECT_NE(median.out.find("ProfilerStep#8"), std::string::npos) << median.out;
  EXPECT_NE(median.out.find("1 collectives"), std::string::npos) << median.out;
}

TEST_F(ReplayTraceCli, WhatCannotBeReplayedIsOneLineExitTwo) {
  write("reduce.json", loop_trace("reduce"));
  for (const char* mode : {" --dry-run", ""}) {
    const Outcome r =
        run(replay() + mode + " --trace-step 8 --trace " + (dir_ / "reduce.json").string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("collective 'reduce'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("at ts 1020.000 us"), std::string::npos) << r.err;
  }
  const Outcome r =
      run(replay() + " --dry-run --trace-step 3 --trace " + (dir_ / "reduce.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no ProfilerStep#3 (its steps: 7, 8)"), std::string::npos) << r.err;
}

// A real torch 2.11 job's calls (tests/fixtures/traces/c10d_2r: barrier, broadcast, all-reduce,
// send/recv, batch_isend_irecv, uneven all_to_all_single, coalesced all-gathers), one gzip'd
// tensorboard trace per rank in a folder, replayed on two host ranks: every op runs and pairs up.
TEST_F(ReplayTraceCli, TwoRanksReplayARealJobsCalls) {
  const Outcome r = run(mpirun_command() + " -np 2 " + replay() + " --backend mpi --steps 1 " +
                        "--warmup 0 --trace " + fixture("c10d_2r") + " --out " +
                        (dir_ / "r.jsonl").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* op : {"bc.fwd.c1", "send.fwd.c4", "recv.fwd.c5", "a2a.fwd.c6", "ag.fwd.c7"})
    EXPECT_NE(r.out.find(op), std::string::npos) << op << "\n" << r.out;
  EXPECT_NE(r.out.find("all_to_allv"), std::string::npos) << r.out;
}

TEST_F(ReplayTraceCli, TraceAndScheduleExcludeEachOther) {
  const Outcome r =
      run(replay() + " --dry-run --schedule x.json --trace " + fixture("q05_1r/rank0.trace.json"));
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
  // four header lines (the intervals' among them), three node counts, the tipping point
  EXPECT_EQ(count_lines(r.out), 8) << r.out;
}

}  // namespace
}  // namespace collreplay::cli_test
