// Where a traced host waits for the GPU: a wait between two launches (.item(), .tolist(), a
// synchronize; a cudaMemcpyAsync to pageable memory) is replayed as a host sync, and a wait at
// the step's start, for work launched before the step, is not the step's time.
#include <gtest/gtest.h>

#include "tests/support/synthetic_trace.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {
namespace {

using test_trace::Builder;
using test_trace::json;

json host_call(const std::string& name, double ts_us, double dur_us) {
  return {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", name},
          {"ts", ts_us}, {"dur", dur_us},       {"tid", 1}};
}

// ProfilerStep#4 from 0: the host blocks 10-300 us on the previous step's work, launches A at 310
// (it starts at 320, behind that work's tail) and B, blocks 430-530 us reading something back,
// then launches C, which ends the step's GPU work at 645 us.
Builder step_with_waits(const std::string& mid_wait) {
  Builder b(0, 1);
  b.step(4, 0, 1000)
      .add(host_call("cudaStreamSynchronize", 10, 290))
      .kernel("elementwise_kernel_a", 310, 320, 80)
      .kernel("elementwise_kernel_b", 420, 425, 50)
      .add(host_call(mid_wait, 430, 100))
      .kernel("elementwise_kernel_c", 540, 545, 100);
  return b;
}

TEST(TraceHostWaits, AWaitBetweenLaunchesIsReplayedAsAHostSync) {
  for (const std::string wait : {"cudaStreamSynchronize", "cudaMemcpyAsync"}) {
    const TraceImport in = trace_to_schedule(parse_trace(step_with_waits(wait).text(), "t.json"), true);
    const std::vector<ScheduleOp>& ops = in.schedule.ops;
    ASSERT_EQ(ops.size(), 3u) << wait;
    EXPECT_EQ(ops[0].compute().kernels.size(), 2u);  // A and B
    EXPECT_EQ(ops[1].name, "host_sync.fwd.w0");
    EXPECT_EQ(ops[1].stream, StreamKind::compute);
    ASSERT_EQ(ops[1].compute().kernels.size(), 1u);
    EXPECT_EQ(ops[1].compute().kernels[0].kind, KernelKind::sync);
    EXPECT_EQ(ops[2].compute().kernels.size(), 1u);  // C
    // The host's time leaves out its waits: the step's start to the read-back, less the 290 us
    // blocked before A; then from the read-back's end to C's launch returning.
    EXPECT_NEAR(ops[0].compute().host_us, 430 - 290, 1e-6) << wait;
    EXPECT_NEAR(ops[2].compute().host_us, 542 - 530, 1e-6) << wait;
  }
}

TEST(TraceHostWaits, TheWaitForThePreviousStepIsNotTheStepsTime) {
  const TraceImport in =
      trace_to_schedule(parse_trace(step_with_waits("cudaStreamSynchronize").text(), "t.json"), true);
  // 290 us blocked before the first launch (from the step's start: 300), then A queued 8 us
  // behind the previous step's tail after its launch returned at 312.
  EXPECT_NEAR(in.queued_us, 308, 1e-6);
  EXPECT_NEAR(in.step_us, 645 - 308, 1e-6);
}

// A host-bound step (a pipeline stage's short kernels under the profiler): its first kernel stood
// 188 us queued behind the previous step's tail, but the host took 700 us to launch the rest,
// and the GPU caught up with it; the queue did not make the step any longer.
TEST(TraceHostWaits, AHostBoundStepIsNoShorterThanItsHostTime) {
  Builder b(0, 1);
  b.step(4, 0, 1000)
      .kernel("elementwise_kernel_a", 10, 200, 10)
      .kernel("elementwise_kernel_b", 300, 303, 10)
      .kernel("elementwise_kernel_c", 500, 503, 10)
      .kernel("elementwise_kernel_d", 700, 703, 10);
  const TraceImport in = trace_to_schedule(parse_trace(b.text(), "t.json"), true);
  // D's launch returned at 702 and it runs 10 us: 712, not 713 - 188.
  EXPECT_NEAR(in.step_us, 712, 1e-6);
  EXPECT_NEAR(in.queued_us, 1, 1e-6);
}

// A launch the GPU's full launch queue held up 5 ms (the host queued a stage's backward while
// its GPU waited on a recv) is the GPU's time, not the host's, and no sync: the host went on.
TEST(TraceHostWaits, ALaunchHeldUpByAFullQueueIsNotHostTime) {
  Builder b(0, 1);
  b.step(4, 0, 10000)
      .kernel("elementwise_kernel_a", 10, 15, 10)
      .add(host_call("cudaLaunchKernel", 100, 5000))  // B's launch, below, is what returned late
      .kernel("elementwise_kernel_b", 5098, 5105, 10);
  const TraceImport in = trace_to_schedule(parse_trace(b.text(), "t.json"), true);
  ASSERT_EQ(in.schedule.ops.size(), 1u);
  EXPECT_EQ(in.schedule.ops[0].compute().kernels.size(), 2u);
  // 5100 us from the step's start to B's launch returning, less the 5000 us held up.
  EXPECT_NEAR(in.schedule.ops[0].compute().host_us, 5100 - 5000, 1e-6);
}

// A wait no longer than the trace's launch-stall cut (kLaunchStallMedians x its median launch) is
// a queueing call returning, not a read-back.
TEST(TraceHostWaits, ShortCallsAreNotSyncs) {
  Builder b(0, 1);
  b.step(4, 0, 1000)
      .kernel("elementwise_kernel_a", 10, 12, 80)
      .add(host_call("cudaMemcpyAsync", 20, 5))
      .kernel("elementwise_kernel_b", 30, 95, 50);
  const TraceImport in = trace_to_schedule(parse_trace(b.text(), "t.json"), true);
  ASSERT_EQ(in.schedule.ops.size(), 1u);
  EXPECT_EQ(in.queued_us, 0);
}

}  // namespace
}  // namespace collreplay::trace
