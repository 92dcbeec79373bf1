// The projection: step simulation by hand, bytes taken from the workloads' schedule, headroom and
// tipping point, compute sources, node-count parsing, fabric profiles, and --validate on
// synthetic sweeps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_profiles.hpp"
#include "bench/project/model/step_sim.hpp"
#include "bench/project/project_cli.hpp"
#include "bench/project/model/mechanisms.hpp"
#include "bench/project/projection.hpp"
#include "bench/project/tipping/tipping_point.hpp"
#include "bench/project/validate.hpp"
#include "bench/replay/headroom.hpp"
#include "common/errors.hpp"
#include "tests/support/project_synthetic.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay::project {
namespace {

namespace fs = std::filesystem;

ScheduleOp compute_op(const std::string& name, std::vector<int> deps) {
  ScheduleOp op;
  op.name = name;
  op.stream = StreamKind::compute;
  op.deps = std::move(deps);
  op.body = ComputeOp{};
  return op;
}

ScheduleOp comm_op(const std::string& name, std::vector<int> deps, int hides_behind) {
  ScheduleOp op;
  op.name = name;
  op.stream = StreamKind::comm;
  op.deps = std::move(deps);
  op.hides_behind = hides_behind;
  op.body = CollectiveOp{};
  return op;
}

TEST(ProjectStepSim, TwoStreamsWithDependencies) {
  // ag0 (4) ; c0 (10) after ag0 ; ag1 (6) beside c0 ; c1 (10) after ag1 and c0 ; rs (12) after c1.
  Schedule s;
  s.ops = {comm_op("ag0", {}, -1), compute_op("c0", {0}), comm_op("ag1", {}, 1),
           compute_op("c1", {2}), comm_op("rs", {3}, -1)};
  EXPECT_DOUBLE_EQ(simulate_step_ms(s, {4, 10, 6, 10, 12}), 4 + 10 + 10 + 12);
  // A slow ag1 (15) delays c1: c1 starts at 4 + 15 = 19.
  EXPECT_DOUBLE_EQ(simulate_step_ms(s, {4, 10, 15, 10, 12}), 19 + 10 + 12);
}

ProjectionInputs inputs_for_small_model(const FabricModel& model) {
  ProjectionInputs in;
  in.request.model = "qwen2.5-0.5b";
  in.request.micro_batch = 1;
  in.request.seq = 1024;
  in.request.gpus_per_node = 4;
  in.model = model;
  in.compute = parse_compute("model:h100@0.5", in.request);
  return in;
}

TEST(ProjectProjection, BytesComeFromTheSchedule) {
  // No latency, no curve: a layer's comm is its collectives' ring bytes over the slower tier.
  FabricModel m;
  m.intra = TierParams{0, 1000, 0, 1};
  m.inter = TierParams{0, 1, 0, 1};  // 1 GB/s per node
  ProjectionInputs in = inputs_for_small_model(m);
  // The plain arithmetic: neither NCCL's hop latencies nor the slowest of N ranks.
  in.terms.nccl_hop_latency = false;
  in.terms.rank_jitter_cv = 0;
  const ProjectionRow row = project_nodes(in, 2);
  WorkloadRequest request = in.request;
  request.world = 8;
  const Schedule s = build_schedule(request);
  const UnitSummary* layer = nullptr;
  for (const UnitSummary& u : s.units)
    if (u.name == "layers.0") layer = &u;
  ASSERT_NE(layer, nullptr);
  // Each unit's comm is hidden behind some unit's compute; total comm over the step = every
  // collective's (n-1)/n S / 1 GB/s.
  double want_step_ms = 0;
  for (const ScheduleOp& op : s.ops)
    if (op.is_collective())
      want_step_ms += 7.0 / 8 * static_cast<double>(op.collective().bytes) / 1e9 * 1e3;
  EXPECT_NEAR(row.comm_step_ms, want_step_ms, want_step_ms * 1e-9);
  // The median layer moves one all-gather for forward, one for backward, one reduce-scatter.
  const double layer_ms =
      7.0 / 8 * (2.0 * layer->allgather_bytes + layer->reduce_scatter_bytes) / 1e6;
  EXPECT_NEAR(row.layer_comm_ms, layer_ms, layer_ms * 0.01);
  // Compute at 50% of the H100 peak.
  double flops = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective()) flops += gemm_flops(op.compute().gemms);
  EXPECT_NEAR(row.compute_step_ms, flops / (989.4e12 * 0.5) * 1e3, 1e-9);
  EXPECT_EQ(row.world, 8);
  // With the nominal terms: compute x the slowest of 8 ranks at the measured jitter, comm longer
  // by NCCL's hop latencies across the two nodes.
  const ProjectionRow nominal = project_nodes(inputs_for_small_model(m), 2);
  NormalMaxima maxima;
  EXPECT_NEAR(nominal.compute_step_ms,
              row.compute_step_ms * slowest_rank_factor(8, kMeasuredRankJitterCv, maxima), 1e-9);
  EXPECT_GT(nominal.comm_step_ms, row.comm_step_ms);
  EXPECT_EQ(row.algorithms.at("all_gather"), "ring");
}

TEST(ProjectProjection, HeadroomShrinksWithNodesAndTipsOver) {
  FabricModel m;
  m.base_us = 10;
  m.intra = TierParams{1, 300, 0, 1};
  m.inter = TierParams{20, 2, 0, 1};
  ProjectionInputs in = inputs_for_small_model(m);
  in.ratio_lo = 0.9;
  in.ratio_hi = 1.2;
  std::vector<ProjectionRow> rows;
  for (int nodes : {1, 2, 8, 64, 1024}) rows.push_back(project_nodes(in, nodes));
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_LT(rows[i].headroom_ms, rows[i - 1].headroom_ms);
  for (const ProjectionRow& r : rows) {
    EXPECT_LE(r.headroom_lo_ms, r.headroom_ms);
    EXPECT_GE(r.headroom_hi_ms, r.headroom_ms);
    EXPECT_NEAR(r.headroom_lo_ms, r.layer_compute_ms - 1.2 * r.layer_comm_ms, 1e-9);
    EXPECT_GE(r.exposed_comm_ms, -1e-9);
    EXPECT_LE(r.exposed_lo_ms, r.exposed_comm_ms + 1e-9);
    ASSERT_TRUE(r.mfu.has_value());
  }
  const auto tip = tipping_point(rows);
  ASSERT_TRUE(tip.has_value());
  ASSERT_TRUE(tip->nodes.has_value());
  for (const ProjectionRow& r : rows) {
    if (r.nodes < *tip->nodes) {
      EXPECT_GE(r.headroom_ms, 0);
    }
    if (r.nodes == *tip->nodes) {
      EXPECT_LT(r.headroom_ms, 0);
    }
    if (r.nodes > 1 && r.nodes < tip->from_nodes) {  // one node: no fabric to tip
      EXPECT_GE(r.headroom_lo_ms, 0);
    }
  }
}

TEST(ProjectInputs, NodeCountsComputeSpecsAndProfiles) {
  EXPECT_EQ(parse_node_counts("1,2,4"), (std::vector<int>{1, 2, 4}));
  for (const char* bad : {"", "0", "1,,2", "1,x", "-2", "2.5"})
    EXPECT_THROW(parse_node_counts(bad), UsageError) << bad;
  WorkloadRequest request;
  EXPECT_NEAR(parse_compute("model:h100@45%", request).mfu, 0.45, 1e-12);
  EXPECT_NEAR(parse_compute("model:h100", request).mfu, 0.5, 1e-12);  // replay's default MFU
  for (const char* bad : {"model:tpu@0.5", "model:h100@1.5", "model:h100@x", "/nonexistent"})
    EXPECT_THROW(parse_compute(bad, request), UsageError) << bad;

  const fs::path tsv = fs::temp_directory_path() / "project_fabrics_test.tsv";
  std::ofstream(tsv) << "# comment\nname node_gbit_s latency_us links description\n"
                        "fast 3200 2 8 eight NICs\nnone 0 0 1 unshaped\n";
  const auto profiles = read_fabric_profiles(tsv.string());
  ASSERT_EQ(profiles.size(), 2u);
  const FabricProfile fast = find_fabric_profile(profiles, "fast");
  EXPECT_EQ(fast.description, "eight NICs");
  EXPECT_DOUBLE_EQ(inter_tier_of(fast).bw_gbyte_s, 400);
  EXPECT_THROW(find_fabric_profile(profiles, "none"), UsageError);
  EXPECT_THROW(find_fabric_profile(profiles, "slow"), UsageError);
  std::ofstream(tsv) << "broken 12 x 1\n";
  EXPECT_THROW(read_fabric_profiles(tsv.string()), UsageError);
  fs::remove(tsv);
}

class ProjectValidate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("project_validate_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ProjectValidate, PredictsTheHeldOutNodeCountOfASyntheticSweep) {
  WorkloadRequest replay;
  replay.model = "qwen2.5-0.5b";
  replay.layers = 2;
  replay.seq = 256;
  synthetic::write_sweep(dir_, {1, 2, 4, 8}, 2, 0.02, &replay);
  const ValidationReport r = validate_results(load_results(dir_.string()), std::nullopt, 1);
  EXPECT_EQ(r.held_out_nodes, 8);
  EXPECT_EQ(r.fit.node_counts, (std::vector<int>{1, 2, 4}));
  int collectives = 0, units = 0, steps = 0;
  for (const ValidationRow& row : r.rows) {
    EXPECT_LT(std::fabs(row.error()), 0.10) << row.level << " " << row.name << " " << row.bytes;
    collectives += row.level == "collective";
    units += row.level == "unit";
    steps += row.level == "step";
  }
  EXPECT_GT(collectives, 10);
  EXPECT_EQ(units, 3);  // root, layers.0, layers.1
  EXPECT_EQ(steps, 1);
}

TEST_F(ProjectValidate, ComputeFromAMeasuredReplayMatchesOpsByName) {
  WorkloadRequest replay;
  replay.model = "qwen2.5-0.5b";
  replay.layers = 2;
  replay.seq = 256;
  synthetic::write_sweep(dir_, {1}, 2, 0, &replay);
  const ComputeSource source = parse_compute(dir_.string(), replay);
  ASSERT_TRUE(source.peak_tflops.has_value());
  EXPECT_EQ(*source.peak_tflops, 100.0);
  replay.world = 64;  // another world size: same compute op names, same per-rank shapes
  const Schedule s = build_schedule(replay);
  int matched = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective()) {
      EXPECT_NEAR(source.op_ms(op), gemm_flops(op.compute().gemms) / 50e12 * 1e3, 1e-12) << op.name;
      ++matched;
    }
  EXPECT_GT(matched, 3);
  WorkloadRequest other = replay;
  other.seq = 512;
  EXPECT_THROW(parse_compute(dir_.string(), other), UsageError);
}

TEST_F(ProjectValidate, RefusesFewerThanThreeNodeCounts) {
  synthetic::write_sweep(dir_, {1, 2}, 2, 0);
  EXPECT_THROW(validate_results(load_results(dir_.string()), std::nullopt, 1), UsageError);
}

TEST_F(ProjectValidate, MalformedResultsAreUsageErrors) {
  synthetic::write_jsonl(dir_ / "bad.jsonl", {});
  std::ofstream(dir_ / "bad.jsonl")
      << "{\"op\": \"all_gather\", \"bytes\": 1, \"time_us\": 1, \"ranks\": 6, \"nodes\": 4}\n";
  EXPECT_THROW(load_results(dir_.string()), UsageError);
  std::ofstream(dir_ / "bad.jsonl") << "not json\n";
  EXPECT_THROW(load_results(dir_.string()), UsageError);
  EXPECT_THROW(load_results((dir_ / "missing").string()), UsageError);
  MeasuredPoint a, b;
  a.span = b.span = GroupSpan{2, 1};
  a.transport = "nvlink";
  b.transport = "socket";
  EXPECT_THROW(require_one_transport_per_tier({a, b}, "dir"), UsageError);
  b.span = GroupSpan{4, 2};
  EXPECT_NO_THROW(require_one_transport_per_tier({a, b}, "dir"));
}

}  // namespace
}  // namespace collreplay::project
