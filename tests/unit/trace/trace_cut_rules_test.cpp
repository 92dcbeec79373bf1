// The importer's two cuts, each at its boundary (issue 38): a host call is a launch stall, or a
// wait for the GPU, when it takes longer than kLaunchStallMedians x the trace's median launch; a
// kernel on an idle stream waited for a collective when it started within kWaitGapUs of its end.
// And each host call counts once: a trace holding a call twice (trimmed before trim_trace.py kept
// each once) does not wait twice.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/synthetic_trace.hpp"
#include "workloads/trace/read/trace_file.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {
namespace {

using test_trace::Builder;
using test_trace::call;
using test_trace::json;

json host_call(const std::string& name, double ts_us, double dur_us) {
  return {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", name},
          {"ts", ts_us}, {"dur", dur_us},       {"tid", 1}};
}

TEST(TraceCutRules, TheStallCutIsAMultipleOfTheTracesMedianLaunch) {
  EXPECT_DOUBLE_EQ(launch_stall_cut_us({12, 8, 10, 9, 11}), kLaunchStallMedians * 10);
  EXPECT_DOUBLE_EQ(launch_stall_cut_us({8, 8, 8, 5000}), kLaunchStallMedians * 8);
  EXPECT_DOUBLE_EQ(launch_stall_cut_us({}), 0);
}

// Four launches of 2 us (the Builder's) and one more: at 20 x 2 us it is an ordinary launch,
// just over it one that waited on a full launch queue.
TEST(TraceCutRules, ALaunchIsAStallJustOverTheCut) {
  for (const double dur_us : {2 * kLaunchStallMedians, 2 * kLaunchStallMedians + 0.5}) {
    Builder b(0, 1);
    b.step(4, 0, 1000)
        .kernel("elementwise_kernel_a", 10, 15, 10)
        .kernel("elementwise_kernel_b", 20, 25, 10)
        .kernel("elementwise_kernel_c", 30, 35, 10)
        .add(host_call("cudaLaunchKernel", 100, dur_us))
        .kernel("elementwise_kernel_d", 400, 405, 10);
    const TraceEvents t = parse_trace(b.text(), "t.json");
    EXPECT_DOUBLE_EQ(t.launch_stall_us, 2 * kLaunchStallMedians);
    EXPECT_EQ(t.launch_stalls.size(), dur_us > t.launch_stall_us ? 1u : 0u) << dur_us;
  }
}

int host_syncs(const TraceImport& in) {
  int n = 0;
  for (const ScheduleOp& op : in.schedule.ops) n += op.name.rfind("host_sync", 0) == 0;
  return n;
}

// A cudaMemcpyAsync between two launches: as long as an ordinary launch may take, it only
// queued; just over, the host waited for the GPU (a read-back) and replay waits there too.
TEST(TraceCutRules, AHostWaitIsASyncJustOverTheCut) {
  for (const double dur_us : {2 * kLaunchStallMedians, 2 * kLaunchStallMedians + 0.5}) {
    Builder b(0, 1);
    b.step(4, 0, 1000)
        .kernel("elementwise_kernel_a", 10, 15, 10)
        .kernel("elementwise_kernel_b", 20, 25, 10)
        .add(host_call("cudaMemcpyAsync", 30, dur_us))
        .kernel("elementwise_kernel_c", 200, 205, 10);
    const TraceImport in = trace_to_schedule(parse_trace(b.text(), "t.json"), true);
    EXPECT_EQ(host_syncs(in), dur_us > 2 * kLaunchStallMedians ? 1 : 0) << dur_us;
  }
}

// A compute kernel queued long before, on an idle stream, starting kWaitGapUs after an
// all-gather ended waited for it; a microsecond later it did not (something else held it).
TEST(TraceCutRules, AKernelWaitedForACollectiveWithinTheGap) {
  for (const double gap_us : {kWaitGapUs, kWaitGapUs + 1}) {
    Builder b(0, 2);
    b.kernel("ncclDevKernel_AllGather_RING_LL", 10, 20, 100,
             call("_allgather_base", 1000, 2000, "[0, 1]"), 1, 25)
        .kernel("elementwise_kernel_a", 12, 120 + gap_us, 10);
    const std::vector<ScheduleOp> ops = trace_to_schedule(parse_trace(b.text(), "t.json"), true)
                                            .schedule.ops;
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[1].deps, gap_us <= kWaitGapUs ? std::vector<int>{0} : std::vector<int>{})
        << gap_us;
  }
}

// The same cudaMemcpyAsync written twice (once with its correlation, once bare, as trim_trace.py
// kept it before the fix) is one wait.
TEST(TraceCutRules, AHostCallWrittenTwiceWaitsOnce) {
  Builder b(0, 1);
  b.step(4, 0, 1000)
      .kernel("elementwise_kernel_a", 10, 15, 10)
      .add(host_call("cudaMemcpyAsync", 30, 300))
      .add(host_call("cudaMemcpyAsync", 30, 300))
      .kernel("elementwise_kernel_c", 400, 405, 10);
  const TraceEvents t = parse_trace(b.text(), "t.json");
  EXPECT_EQ(t.host_waits.size(), 1u);
}

// The committed fixtures hold each runtime call once (trim_trace.py --dedupe rewrote those
// trimmed before the fix: 274 GPU-launching cudaMemcpyAsync calls were there twice).
TEST(TraceCutRules, EveryCommittedFixtureHoldsEachRuntimeCallOnce) {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& dir : fs::directory_iterator(test_support::fixtures("traces", "")))
    for (const auto& f : fs::directory_iterator(dir.path())) {
      const std::string path = f.path().string();
      if (path.find(".json") == std::string::npos) continue;
      ++files;
      const json doc = json::parse(read_trace_text(path));
      std::set<std::tuple<std::string, std::string, double, double, std::int64_t>> seen;
      int repeated = 0;
      for (const json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (cat != "cuda_runtime" && cat != "cuda_driver") continue;
        repeated += !seen.emplace(cat, e.value("name", ""), e.value("ts", 0.0),
                                  e.value("dur", 0.0), e.value("tid", std::int64_t{0}))
                         .second;
      }
      EXPECT_EQ(repeated, 0) << path;
    }
  EXPECT_GE(files, 17);
}

}  // namespace
}  // namespace collreplay::trace
