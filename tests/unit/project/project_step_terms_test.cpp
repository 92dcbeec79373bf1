// The step terms beyond bandwidth: the slowest link of a ring, the overhead of collectives that
// cross nodes, compute slowed under overlapping comm, the optimizer step; and the projection with
// them (off by default: the plain projection is unchanged).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "bench/project/model/step_terms.hpp"
#include "bench/project/projection.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

ScheduleOp op_on(StreamKind stream, std::vector<int> deps, int hides_behind = -1) {
  ScheduleOp op;
  op.stream = stream;
  op.deps = std::move(deps);
  op.hides_behind = hides_behind;
  if (stream == StreamKind::comm)
    op.body = CollectiveOp{};
  else
    op.body = ComputeOp{};
  return op;
}

TEST(ProjectStepTerms, ExpectedMaximaOfNormals) {
  NormalMaxima maxima;
  EXPECT_EQ(maxima.expected_max(1), 0);
  EXPECT_NEAR(maxima.expected_max(2), 1 / std::sqrt(std::numbers::pi), 1e-4);
  EXPECT_NEAR(maxima.expected_max(3), 1.5 / std::sqrt(std::numbers::pi), 1e-4);
  EXPECT_NEAR(maxima.expected_max(8), 1.4236, 1e-3);
  EXPECT_NEAR(maxima.expected_max(1024), 3.2414, 1e-2);
  EXPECT_NEAR(slowest_link_factor(2, 0.5, maxima), std::exp(-0.5 / std::sqrt(std::numbers::pi)),
              1e-4);
  EXPECT_EQ(slowest_link_factor(1, 0.5, maxima), 1);
  EXPECT_EQ(slowest_link_factor(64, 0, maxima), 1);
}

TEST(ProjectStepTerms, OverheadOnlyWhereTheGroupCrossesNodes) {
  FabricModel m;
  m.intra = TierParams{0, 100, 0, 1};
  m.inter = TierParams{0, 10, 0, 1};
  StepTerms terms;
  terms.inter_overhead_ms = 2;
  terms.link_spread = 0.3;
  terms.nccl_hop_latency = false;  // no latency: the bytes and the overhead alone
  NormalMaxima maxima;
  const double bytes = 1e9;
  // One node: the intra tier alone, no overhead, no link spread.
  EXPECT_NEAR(collective_ms(CollKind::all_gather, bytes, {8, 1}, m, terms, maxima),
              7.0 / 8 * bytes / 100e9 * 1e3, 1e-9);
  // Four nodes: the inter tier at its slowest link, plus the overhead.
  const double slowest = 10 * slowest_link_factor(4, 0.3, maxima);
  EXPECT_NEAR(collective_ms(CollKind::all_gather, bytes, {32, 4}, m, terms, maxima),
              31.0 / 32 * bytes / (slowest * 1e9) * 1e3 + 2, 1e-9);
}

TEST(ProjectStepTerms, ComputeSlowsUnderOverlapUpToAllOfIt) {
  // c0 (10 ms) with ag (4 ms) hiding behind it; c1 (10 ms) with rs (30 ms) hiding behind it.
  Schedule s;
  s.ops = {op_on(StreamKind::compute, {}), op_on(StreamKind::comm, {}, 0),
           op_on(StreamKind::compute, {0}), op_on(StreamKind::comm, {0}, 2)};
  const std::vector<double> slowed = slowed_compute_ms(s, {10, 4, 10, 30}, 0.5);
  EXPECT_DOUBLE_EQ(slowed[0], 10 + 0.5 * 4);   // 4 ms at half speed: 2 ms more
  EXPECT_DOUBLE_EQ(slowed[2], 10 / (1 - 0.5));  // all of it under comm: half speed throughout
  EXPECT_DOUBLE_EQ(slowed[1], 4);
  EXPECT_DOUBLE_EQ(slowed[3], 30);
  EXPECT_EQ(slowed_compute_ms(s, {10, 4, 10, 30}, 0), (std::vector<double>{10, 4, 10, 30}));
}

TEST(ProjectStepTerms, TheOptimizerPhaseIsTheSumOfItsOps) {
  Schedule s;
  s.ops.push_back(op_on(StreamKind::compute, {}));
  s.ops.push_back(op_on(StreamKind::compute, {}));
  s.ops.back().phase = Phase::optimizer;
  s.ops.push_back(op_on(StreamKind::compute, {}));
  s.ops.back().phase = Phase::optimizer;
  EXPECT_DOUBLE_EQ(optimizer_phase_ms(s, {10, 2, 3}), 5);
  s.ops[1].phase = s.ops[2].phase = Phase::backward;
  EXPECT_DOUBLE_EQ(optimizer_phase_ms(s, {10, 2, 3}), 0);
}

TEST(ProjectStepTerms, ProjectionAddsTheTermsAndKeepsThePlainOneAsItWas) {
  ProjectionInputs in;
  in.request.model = "qwen2.5-0.5b";
  in.request.micro_batch = 1;
  in.request.seq = 1024;
  in.request.gpus_per_node = 4;
  in.model.intra = TierParams{0, 300, 0, 1};
  in.model.inter = TierParams{5, 50, 0, 1};
  in.compute = parse_compute("model:h100@0.5", in.request);
  const ProjectionRow plain = project_nodes(in, 4);
  EXPECT_NEAR(plain.tokens_per_s_per_gpu * plain.world, plain.tokens_per_s, 1e-6);
  // model:GPU@MFU times GEMMs: the optimizer phase's memory-bound kernels are inside the MFU.
  EXPECT_EQ(plain.optimizer_ms, 0);

  in.terms.compute_scale = 2;
  const ProjectionRow slower = project_nodes(in, 4);
  EXPECT_NEAR(slower.compute_step_ms, 2 * plain.compute_step_ms, 1e-9);
  in.terms.inter_overhead_ms = 1;
  in.terms.compute_slowdown = 0.3;
  in.terms.link_spread = 0.2;
  const ProjectionRow paid = project_nodes(in, 4);
  EXPECT_GT(paid.comm_step_ms, slower.comm_step_ms);
  EXPECT_GT(paid.step_ms, slower.step_ms);
}

}  // namespace
}  // namespace collreplay::project
