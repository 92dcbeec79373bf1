// The trace importer on real traces from an H100 (tests/fixtures/traces: Qwen2.5-0.5B, 2 layers,
// FSDP2, written by sweeps/gpu/reference/reference_step.py --trace-dir and trimmed by
// trim_trace.py): what it reads, the schedule it makes, and what it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "common/errors.hpp"
#include "tests/support/results_fixtures.hpp"
#include "workloads/trace/trace_events.hpp"
#include "workloads/trace/trace_import.hpp"

namespace collreplay::trace {
namespace {

std::string two_ranks(int rank) {
  return test_support::fixtures("traces", "q05_small/rank" + std::to_string(rank) + ".trace.json");
}
std::string one_rank() { return test_support::fixtures("traces", "q05_1r/rank0.trace.json"); }

WorkloadRequest request_for(const std::string& trace, int rank = 0, int world = 0) {
  WorkloadRequest q;
  q.trace = trace;
  q.rank = rank;
  q.world = world;
  q.seq = 512;
  return q;
}

double timed_us(const Schedule& s) {
  double us = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const KernelSlice& k : op.compute().kernels) us += k.duration_us;
  return us;
}

TEST(TraceRead, ReadsRankWorldAndCollectiveFields) {
  const TraceEvents t = read_trace(two_ranks(1));
  EXPECT_EQ(t.rank, 1);
  EXPECT_EQ(t.world, 2);
  EXPECT_EQ(t.device, "NVIDIA H100 80GB HBM3");
  int collectives = 0;
  for (const GpuWork& w : t.gpu) {
    if (!w.collective) continue;
    ++collectives;
    EXPECT_EQ(w.collective->dtype, "BFloat16");
    EXPECT_EQ(w.collective->ranks, (std::vector<int>{0, 1}));
  }
  EXPECT_EQ(collectives, 8);
  for (std::size_t i = 1; i < t.gpu.size(); ++i) EXPECT_LE(t.gpu[i - 1].launch_us, t.gpu[i].launch_us);
}

TEST(TraceImport, CollectivesKeepKindSizeAndGroup) {
  const TraceImport in = import_trace(request_for(two_ranks(0)));
  std::map<CollectiveKind, std::vector<std::uint64_t>> bytes;
  for (const ScheduleOp& op : in.schedule.ops)
    if (op.is_collective()) {
      EXPECT_EQ(op.collective().group, GroupKind::world);
      EXPECT_EQ(op.collective().dtype, DType::bf16);
      bytes[op.collective().kind].push_back(op.collective().bytes);
    }
  // nelems x 2 bytes: the root's 136,135,552 parameters gathered first and reduced last; a layer's
  // 14,912,384 in between (all-gather: out nelems, reduce-scatter: in nelems).
  const std::uint64_t root = 272271104, layer = 29824768;
  EXPECT_EQ(bytes[CollectiveKind::all_gather],
            (std::vector<std::uint64_t>{root, layer, layer, layer, layer}));
  EXPECT_EQ(bytes[CollectiveKind::reduce_scatter], (std::vector<std::uint64_t>{layer, layer, root}));
}

TEST(TraceImport, ComputeIsTheTracedKernelTime) {
  for (const std::string& path : {two_ranks(0), one_rank()}) {
    const TraceEvents t = read_trace(path);
    double kernel_us = 0;
    for (const GpuWork& w : t.gpu)
      if (!w.collective) kernel_us += w.dur_us;
    const Schedule s = import_trace(request_for(path)).schedule;
    EXPECT_NEAR(timed_us(s), kernel_us, 0.01 * kernel_us) << path;
  }
}

TEST(TraceImport, WaitsRunBothWays) {
  const Schedule s = import_trace(request_for(two_ranks(0))).schedule;
  int compute_waits = 0;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& op = s.ops[i];
    for (int dep : op.deps) {
      ASSERT_LT(dep, static_cast<int>(i));
      // Compute waits for collectives (its own stream orders it after compute); collectives
      // wait for compute issued before them, or for a collective that held their stream.
      EXPECT_TRUE(op.is_collective() || s.ops[static_cast<std::size_t>(dep)].is_collective());
      compute_waits += !op.is_collective();
    }
  }
  // The first layer's copy-out waits for its all-gather: op 2 on op 1.
  ASSERT_GE(s.ops.size(), 3u);
  EXPECT_TRUE(s.ops[1].is_collective());
  EXPECT_EQ(s.ops[2].deps, std::vector<int>{1});
  EXPECT_GE(compute_waits, 5);
}

TEST(TraceImport, PhasesAndHostTime) {
  const TraceImport in = import_trace(request_for(one_rank()));
  std::map<Phase, int> ops;
  for (const ScheduleOp& op : in.schedule.ops) {
    EXPECT_FALSE(op.is_collective());  // FSDP2 calls no collective at one rank
    ++ops[op.phase];
  }
  EXPECT_GT(ops[Phase::forward], 0);
  EXPECT_GT(ops[Phase::backward], 0);
  EXPECT_GT(ops[Phase::optimizer], 0);
  EXPECT_GT(in.host_us, in.compute_us);  // eager PyTorch at micro-batch 1: the host sets the pace
  EXPECT_LE(in.host_us, in.step_us);

  WorkloadRequest none = request_for(one_rank());
  none.host_time = "none";
  EXPECT_EQ(import_trace(none).host_us, 0);
}

TEST(TraceImport, OneTraceServesEveryRankAndOtherWorlds) {
  const Schedule mine = import_trace(request_for(two_ranks(0), 1)).schedule;
  EXPECT_EQ(mine.rank, 1);
  EXPECT_EQ(mine.world, 2);
  // At 3 ranks FSDP gathers the same unit, padded to whole elements on every rank.
  const Schedule three = import_trace(request_for(two_ranks(0), 0, 3)).schedule;
  EXPECT_EQ(three.world, 3);
  ASSERT_EQ(three.ops.size(), mine.ops.size());
  for (std::size_t i = 0; i < three.ops.size(); ++i)
    if (three.ops[i].is_collective()) {
      const std::uint64_t traced = mine.ops[i].collective().bytes;
      const std::uint64_t padded = three.ops[i].collective().bytes;
      EXPECT_EQ(padded % 6, 0u);  // 3 ranks x 2 bytes
      EXPECT_GE(padded, traced);
      EXPECT_LT(padded - traced, 6u);
    }
  // One trace per rank: each its own, and only at the traced world.
  const std::string pattern = test_support::fixtures("traces", "q05_small/rank%d.trace.json");
  EXPECT_EQ(import_trace(request_for(pattern, 1)).schedule.rank, 1);
  EXPECT_THROW(import_trace(request_for(pattern, 0, 4)), UsageError);
}

void expect_refused(const std::string& text, const std::string& names) {
  try {
    parse_trace(text, "bad.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
  }
}

TEST(TraceRead, RefusesWhatItCannotUse) {
  expect_refused("{not json", "not JSON");
  expect_refused("{\"schemaVersion\": 1}", "no traceEvents");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1,
                  "dur": 2}]})",
                 "no GPU kernels");
  const std::string launch =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "dur": 1,
          "tid": 5, "args": {"correlation": 7}})";
  expect_refused(R"({"traceEvents": [)" + launch +
                     R"(, {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL",
                  "ts": 3, "dur": 5, "args": {"correlation": 7, "Collective name":
                  "_allgather_base", "Out msg nelems": 8, "dtype": "BFloat16"}}]})",
                 "'In msg nelems'");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 3,
                  "dur": 5, "args": {"correlation": 9}}]})",
                 "no launch");
  expect_refused(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon"}]})",
                 "unexpected shape");
  EXPECT_THROW(read_trace("/nonexistent/rank0.trace.json"), UsageError);
}

}  // namespace
}  // namespace collreplay::trace
