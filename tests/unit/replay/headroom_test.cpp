#include "bench/replay/headroom.hpp"

#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/unit/replay/replay_schedule_fixture.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using testing::two_unit_schedule;

OpTimes times_for(double compute_ms, double comm_ms) {
  OpTimes t;
  const Schedule s = two_unit_schedule(1 << 20, 64);
  for (const ScheduleOp& op : s.ops) {
    t.compute_only_ms.push_back(op.is_collective() ? 0 : compute_ms);
    t.comm_only_ms.push_back(op.is_collective() ? comm_ms : 0);
    t.overlapped_ms.push_back(op.is_collective() ? comm_ms : compute_ms * 1.1);
  }
  return t;
}

TEST(Headroom, FlopsAreTwoMnkTimesBatch) {
  ComputeOp op;
  op.gemms = {{2, 3, 4, 1, "a"}, {1, 1, 1, 5, "b"}};
  EXPECT_DOUBLE_EQ(gemm_flops(op.gemms), 2.0 * 24 + 2.0 * 5);
  EXPECT_DOUBLE_EQ(schedule_totals(two_unit_schedule(8, 64)).flops, 4 * 2.0 * 64 * 256 * 256);
}

TEST(Headroom, PerOpSumsTheCommThatHidesBehindIt) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  const auto ops = op_headroom(s, times_for(10, 4));
  ASSERT_EQ(ops.size(), 4u);  // the compute ops 1, 3, 4, 6
  EXPECT_EQ(ops[0].op, 1);
  EXPECT_DOUBLE_EQ(ops[0].comm_ms, 4);  // ag.u1
  EXPECT_DOUBLE_EQ(ops[0].headroom_ms, 6);
  EXPECT_DOUBLE_EQ(*ops[0].headroom_ratio, 0.6);
  EXPECT_DOUBLE_EQ(ops[1].comm_ms, 0);
  EXPECT_DOUBLE_EQ(*ops[1].headroom_ratio, 1.0);
  EXPECT_EQ(ops[3].op, 6);
  EXPECT_DOUBLE_EQ(ops[3].comm_ms, 4);  // rs.u1
}

TEST(Headroom, PerUnitAttributesCommToTheComputeItHidesBehind) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  const auto units = unit_headroom(s, times_for(2, 5));
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].unit, "u0");
  EXPECT_DOUBLE_EQ(units[0].compute_ms, 4);             // fwd.u0 + bwd.u0
  EXPECT_DOUBLE_EQ(units[0].comm_ms, 10);               // ag.u1 and rs.u1 hide in u0's compute
  EXPECT_DOUBLE_EQ(units[0].exposed_by_design_ms, 10);  // ag.u0, rs.u0
  EXPECT_DOUBLE_EQ(units[0].headroom_ms, -6);
  EXPECT_DOUBLE_EQ(*units[0].headroom_ratio, -1.5);
  EXPECT_EQ(units[1].unit, "u1");
  EXPECT_DOUBLE_EQ(units[1].comm_ms, 0);
  EXPECT_DOUBLE_EQ(units[1].headroom_ms, 4);
}

TEST(Headroom, RatioIsNullWithoutCompute) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  const auto ops = op_headroom(s, times_for(0, 1));
  EXPECT_FALSE(ops[0].headroom_ratio.has_value());
}

TEST(Headroom, HidesBehindACollectiveIsAUsageError) {
  Schedule s = two_unit_schedule(1 << 20, 64);
  s.ops[2].hides_behind = 0;
  EXPECT_THROW(op_headroom(s, times_for(1, 1)), UsageError);
}

TEST(Headroom, StepMetrics) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  RateInputs rates{128, 4, 4e12, 3e12, 1000.0};
  const StepHeadroom step = step_headroom(s, {100, 40, 110}, times_for(10, 4), rates);
  EXPECT_DOUBLE_EQ(step.exposed_comm_ms, 10);
  EXPECT_DOUBLE_EQ(*step.overlap_efficiency, 0.75);
  EXPECT_NEAR(*step.compute_slowdown, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(*step.tokens_per_s, 128.0 * 4 / 0.110);
  // MFU counts model FLOPs, HFU what the hardware ran (recompute included).
  EXPECT_NEAR(*step.mfu, 3e12 / 0.110 / 1e15, 1e-12);
  EXPECT_NEAR(*step.mfu_compute_only, 3e12 / 0.100 / 1e15, 1e-12);
  EXPECT_NEAR(*step.hfu, 4e12 / 0.110 / 1e15, 1e-12);
  EXPECT_NEAR(*step.hfu_compute_only, 4e12 / 0.100 / 1e15, 1e-12);
}

// Forward attention score and context GEMMs of one causal sequence, fwd + bwd (3x): the causal
// half of torchtitan's 12 L H Q T per token.
double causal_attention_flops(double layers, double heads, double head_dim, double seq) {
  return 6.0 * layers * heads * head_dim * seq * seq;
}

// Qwen2.5-7B, 4,096 tokens per rank, activation checkpointing. MFU's FLOPs: 6 x the parameters
// that multiply activations (every Linear and lm_head, not the input embedding lookup) x tokens
// + attention; HFU's: every GEMM run, recompute included, so HFU > MFU.
TEST(Headroom, ModelFlopsAreSixNTokensPlusAttentionWithoutRecompute) {
  WorkloadRequest q;
  q.model = "qwen2.5-7b";
  q.world = 2;
  q.seq = 4096;
  const Schedule s = build_schedule(q);
  const double embedding = 152064.0 * 3584;  // untied: lm_head is a second matrix of this size
  const double expected = 6.0 * (static_cast<double>(s.active_params) - embedding) * 4096 +
                          causal_attention_flops(28, 28, 128, 4096);
  const double model = model_flops(s), hardware = schedule_totals(s).flops;
  // Biases and norm weights are parameters no GEMM multiplies: well under 0.1% of the count.
  EXPECT_NEAR(model / expected, 1.0, 1e-3);
  EXPECT_GT(hardware / model, 1.2);
  EXPECT_LT(hardware / model, 1.4);
}

// Qwen2.5-0.5B ties lm_head to the input embedding: the one matrix multiplies once (the head),
// so it counts once, and HFU >= MFU still holds with recompute on.
TEST(Headroom, TiedEmbeddingCountsTheHeadMatmulOnce) {
  WorkloadRequest q;
  q.model = "qwen2.5-0.5b";
  q.world = 1;
  q.seq = 2048;
  q.micro_batch = 2;
  const Schedule s = build_schedule(q);
  const double expected = 6.0 * static_cast<double>(s.active_params) * 4096 +
                          2 * causal_attention_flops(24, 14, 64, 2048);
  EXPECT_NEAR(model_flops(s) / expected, 1.0, 2e-3);
  EXPECT_GE(schedule_totals(s).flops, model_flops(s));
}

TEST(Headroom, NoPeakNoMfuNoCommNoEfficiency) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  const StepHeadroom step =
      step_headroom(s, {100, 0, 100}, times_for(10, 0), {128, 1, 1e9, 1e9, {}});
  EXPECT_FALSE(step.mfu.has_value());
  EXPECT_FALSE(step.overlap_efficiency.has_value());
}

// A step whose communication is lost in the compute pass's noise (0.02 ms beside 127.6 ms, as a
// one-GPU replay measured) has no overlap efficiency, rather than -23.
TEST(Headroom, NegligibleCommHasNoEfficiency) {
  const Schedule s = two_unit_schedule(1 << 20, 64);
  const RateInputs rates{128, 1, 1e9, 1e9, {}};
  EXPECT_FALSE(step_headroom(s, {127.6, 0.02, 128.1}, times_for(10, 0.01), rates)
                   .overlap_efficiency.has_value());
  EXPECT_TRUE(step_headroom(s, {100, 5, 102}, times_for(10, 2.5), rates)
                  .overlap_efficiency.has_value())
      << "5% of the compute is enough to judge";
}

TEST(Headroom, SanityBounds) {
  StepHeadroom fine;
  fine.compute_ms = 100;
  fine.comm_ms = 40;
  fine.overlapped_ms = 120;
  EXPECT_TRUE(step_sanity(fine, 0.05).empty());
  StepHeadroom too_fast = fine;
  too_fast.overlapped_ms = 90;
  EXPECT_EQ(step_sanity(too_fast, 0.05).size(), 1u);
  StepHeadroom too_slow = fine;
  too_slow.overlapped_ms = 150;
  EXPECT_EQ(step_sanity(too_slow, 0.05).size(), 1u);
  StepHeadroom within_tolerance = fine;
  within_tolerance.overlapped_ms = 96;
  EXPECT_TRUE(step_sanity(within_tolerance, 0.05).empty());
}

TEST(Headroom, ScaleForTargetMfu) {
  // 1e12 FLOPs at 1000 TFLOP/s peak and 50% MFU: 2 ms; measured 0.5 ms at scale 1 -> 4.
  EXPECT_DOUBLE_EQ(scale_for_target_mfu(1e12, 0.5, 1000, 0.5), 4.0);
  EXPECT_THROW(scale_for_target_mfu(1e12, 0.5, 1000, 0), UsageError);
  EXPECT_THROW(scale_for_target_mfu(1e12, 0.5, 1000, 1.5), UsageError);
  EXPECT_THROW(scale_for_target_mfu(1e12, 0.5, 0, 0.5), UsageError);
}

TEST(Headroom, HelpNamesEveryMetric) {
  const std::string help = headroom_help();
  for (const char* name :
       {"headroom_ms", "headroom_ratio", "exposed_comm_ms", "overlap_efficiency",
        "compute_slowdown", "tokens_per_s", "mfu", "--compute-scale", "--target-mfu"})
    EXPECT_NE(help.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace collreplay
