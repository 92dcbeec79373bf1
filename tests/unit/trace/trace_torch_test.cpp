// Real torch 2.11 traces (tests/fixtures/traces/c10d_2r, written by its make_traces.py on an H100):
// two ranks' tensorboard_trace_handler files, gzip'd, in one folder, of two profiled steps holding
// every c10d call a training loop makes, with record_shapes. Both ranks replay the same step and
// their collectives pair up.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/support/results_fixtures.hpp"
#include "workloads/trace/trace_import.hpp"

namespace collreplay::trace {
namespace {

TraceImport rank_of_folder(int rank) {
  WorkloadRequest q;
  q.trace = test_support::fixtures("traces", "c10d_2r");
  q.rank = rank;
  q.world = 0;
  return import_trace(q);
}

std::vector<std::string> listed(const TraceImport& in) {
  std::vector<std::string> out;
  for (const ScheduleOp& op : in.schedule.ops) {
    if (!op.is_collective()) continue;
    const CollectiveOp& c = op.collective();
    std::string line = std::string(collective_kind_name(c.kind)) + " " + std::to_string(c.bytes) +
                       " " + std::string(dtype_name(c.dtype)) + " " + group_label(c);
    if (c.kind == CollectiveKind::broadcast) line += " root " + std::to_string(c.root);
    if (is_point_to_point(c.kind)) line += " peer " + std::to_string(c.peer);
    out.push_back(line);
  }
  return out;
}

TEST(TraceTorch211, EveryCallOfATrainingLoop) {
  const TraceImport in = rank_of_folder(0);
  EXPECT_EQ(in.step, 1);  // the shorter of the two profiled steps
  EXPECT_EQ(in.schedule.world, 2);
  EXPECT_EQ(listed(in), (std::vector<std::string>{
                            "all_reduce 4 fp32 world",  // barrier: Byte, 0 elements in the trace
                            "broadcast 2000 bf16 world root 1",
                            "all_reduce 16384 fp32 world",
                            "send 512 bf16 world peer 1",
                            "send 200 bf16 world peer 1",  // batch_isend_irecv: one kernel
                            "recv 200 bf16 world peer 1",
                            "all_to_allv 80 bf16 world",
                            "all_gather 160 fp32 world",  // two coalesced: torch records the sum
                            "all_reduce 32 fp32 world",
                        }));
}

TEST(TraceTorch211, BothRanksReplayOneStepAndTheirCallsPairUp) {
  const TraceImport zero = rank_of_folder(0), one = rank_of_folder(1);
  EXPECT_EQ(one.step, zero.step);  // rank 0's median, though rank 1's own median differs
  EXPECT_EQ(one.schedule.rank, 1);
  const std::vector<std::string> mine = listed(one);
  ASSERT_EQ(mine.size(), 9u);
  EXPECT_EQ(mine[3], "recv 512 bf16 world peer 0");
  const auto a2a = [](const TraceImport& in) {
    for (const ScheduleOp& op : in.schedule.ops)
      if (op.is_collective() && op.collective().kind == CollectiveKind::all_to_allv)
        return op.collective();
    return CollectiveOp{};
  };
  // Rows of 8: rank 0 sends 1 and 4 rows, rank 1 sends 3 and 2.
  EXPECT_EQ(a2a(zero).send_counts, (std::vector<std::uint64_t>{8, 32}));
  EXPECT_EQ(a2a(one).send_counts, (std::vector<std::uint64_t>{24, 16}));
  EXPECT_EQ(a2a(zero).recv_counts[1], a2a(one).send_counts[0]);
  EXPECT_EQ(a2a(one).recv_counts[0], a2a(zero).send_counts[1]);
}

TEST(TraceTorch211, OneRanksP2pIsNotAnotherRanks) {
  WorkloadRequest q;
  q.trace = test_support::fixtures("traces", "c10d_2r/r0.1795614776862930478.pt.trace.json.gz");
  q.world = 0;
  EXPECT_EQ(import_trace(q).schedule.ops.size(), rank_of_folder(0).schedule.ops.size());
  q.rank = 1;  // rank 0's sends to rank 1 cannot be rank 1's
  EXPECT_THROW(import_trace(q), UsageError);
}

TEST(TraceTorch211, FlopsOfTheTracedShapes) {
  // mm 64x128x256 and its backward, linear 128x32x64 (addmm) and its weight grad, causal SDPA
  // 2x4x128x128x64 forward (half of 4bhs^2d) and backward (2.5x).
  const double expected = 2.0 * 64 * 128 * 256 * 2 + 2.0 * 128 * 32 * 64 * 2 +
                          4.0 * 2 * 4 * 128 * 128 * 64 / 2 * 3.5;
  EXPECT_EQ(rank_of_folder(0).compute_flops, expected);
  EXPECT_EQ(rank_of_folder(1).compute_flops, expected);
}

}  // namespace
}  // namespace collreplay::trace
