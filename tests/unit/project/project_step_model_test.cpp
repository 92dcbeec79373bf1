// The one step model under project, advise, report and the demo: a node's NICs shared by every
// sibling group that crosses them, one comm stream per process group, exposure reported per group,
// a tipping point that cannot hide critical-path exposure, and memory checked with each row.
#include <gtest/gtest.h>

#include "bench/project/compute_source.hpp"
#include "bench/project/memory/memory_limit.hpp"
#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/measured_points.hpp"
#include "bench/project/model/step_sim.hpp"
#include "bench/project/projection.hpp"
#include "bench/project/tipping/tipping_point.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

// eth-100g's inter tier (12.5 GB/s, one NIC) with latency and intra-node cost out of the way.
FabricModel one_nic_model() {
  FabricModel m;
  m.intra = TierParams{0, 1000, 0, 1};
  m.inter = TierParams{0, 12.5, 0, 1};
  m.links = 1;
  m.tree_allowed = false;
  return m;
}

TEST(ProjectStepModel, EightReplicaGroupsCrossingOneNicGetAnEighthEach) {
  // HSDP on 4 nodes of 8: each replica group holds one rank per node, and the node's 8 groups
  // all-reduce at once through its one NIC.
  const GroupSpan replica = replay_group_span("replicate", 4, 4, 8);
  EXPECT_EQ(replica.ranks_per_node(), 1);
  EXPECT_DOUBLE_EQ(inter_share(replica, 1), 1.0 / 8);
  // Ring all-reduce of 64 MiB over 4 ranks: 2 x 3/4 x 64 MiB through the node, at 12.5 / 8 GB/s.
  const double alone_us = 2 * 0.75 * 64 * MiB / 12.5e3;
  EXPECT_NEAR(predict(CollKind::all_reduce, 64 * MiB, replica, one_nic_model()).time_us,
              8 * alone_us, 1e-6);
  // Multi-rail: each group drives its own rail, an eighth of the node's bandwidth as before.
  EXPECT_DOUBLE_EQ(inter_share(replica, 8), 1.0 / 8);
  // One group of the whole world crossing the node gets all of it.
  EXPECT_DOUBLE_EQ(inter_share(replay_group_span("world", 32, 4, 8), 1), 1.0);
  // Two rails, four groups of two ranks per node: half a rail each.
  EXPECT_DOUBLE_EQ(inter_share(GroupSpan{8, 4, 8}, 2), 0.25);
}

ScheduleOp op_on(const std::string& name, GroupKind group, std::vector<int> deps) {
  ScheduleOp op;
  op.name = name;
  op.deps = std::move(deps);
  if (name.starts_with("c")) {
    op.stream = StreamKind::compute;
    op.body = ComputeOp{};
  } else {
    CollectiveOp c;
    c.group = group;
    op.body = c;
  }
  return op;
}

TEST(ProjectStepModel, EachProcessGroupHasItsOwnStream) {
  // A shard group's prefetched gather (10 ms) is queued before a TP all-reduce (1 ms) that waits
  // for compute c0 (2 ms); on one FIFO the all-reduce would wait for the gather: 10 + 1 + 2.
  Schedule s;
  s.ops = {op_on("c0", GroupKind::world, {}), op_on("ag", GroupKind::shard, {}),
           op_on("ar", GroupKind::tp, {0}), op_on("c1", GroupKind::world, {2})};
  EXPECT_DOUBLE_EQ(simulate_step_ms(s, {2, 10, 1, 2}), 10);
  EXPECT_DOUBLE_EQ(simulate_step_ms(s, {2, 0.5, 1, 2}), 2 + 1 + 2);
  const std::vector<int> streams = op_streams(s);
  EXPECT_EQ(streams[0], 0);
  EXPECT_NE(streams[1], streams[2]);
  EXPECT_GT(streams[1], 0);
}

ProjectionInputs tp_fsdp_inputs() {
  ProjectionInputs in;
  in.request.model = "qwen2.5-0.5b";
  in.request.layers = 4;
  in.request.micro_batch = 1;
  in.request.seq = 2048;
  in.request.gpus_per_node = 8;
  in.request.tp = 2;
  in.model.intra = TierParams{5, 300, 0, 1};  // NVLink-like: every layer has headroom
  in.model.inter = TierParams{2, 400, 0, 1};
  in.model.links = 8;
  in.compute = parse_compute("model:h100@0.5", in.request);
  return in;
}

TEST(ProjectStepModel, TpCollectivesAreExposedApartFromHiddenFsdpOnes) {
  const ProjectionInputs in = tp_fsdp_inputs();
  const ProjectionRow row = project_nodes(in, 1);
  ASSERT_GT(row.headroom_ms, 0);  // every layer's FSDP gather hides
  ASSERT_TRUE(row.exposed_by_group_ms.count("tp"));
  ASSERT_TRUE(row.exposed_by_group_ms.count("shard"));
  // TP's all-reduces wait for the GEMM before them and hold up the one after: all exposed.
  EXPECT_GT(row.exposed_by_group_ms.at("tp"), 0.5 * row.critical_exposed_ms);
  EXPECT_GT(row.critical_exposed_ms, 0.01 * row.step_ms);
  // FSDP's prefetched gathers hide but for the first gather and the last reduce-scatter: four
  // times the layers leave its exposure as it was, while TP's grows with every layer.
  ProjectionInputs longer = in;
  longer.request.layers = 16;
  const ProjectionRow four_times = project_nodes(longer, 1);
  EXPECT_NEAR(four_times.exposed_by_group_ms.at("shard"), row.exposed_by_group_ms.at("shard"),
              0.1 * row.exposed_by_group_ms.at("shard"));
  EXPECT_GT(four_times.exposed_by_group_ms.at("tp"), 3.5 * row.exposed_by_group_ms.at("tp"));
  // All of it inside the node: the layout's own cost on every fabric, never a tipping point.
  EXPECT_NEAR(row.layout_exposed_ms, row.exposed_comm_ms, 1e-6);
  EXPECT_EQ(row.fabric_exposed_ms, 0);
  EXPECT_FALSE(tipping_point({row}));
  EXPECT_NE(layout_cost_text({row}).find("inside a node"), std::string::npos);

  ProjectionInputs async = in;
  async.request.async_tp = true;  // each TP collective overlaps the GEMM beside it
  const ProjectionRow hidden = project_nodes(async, 1);
  EXPECT_LT(hidden.critical_exposed_ms, row.critical_exposed_ms);
}

// A row whose median layer's collectives cross nodes, at `nodes` nodes of two ranks.
ProjectionRow crossing_row(int nodes, double lo_ms, double headroom_ms, double hi_ms) {
  ProjectionRow r;
  r.nodes = nodes;
  r.world = 2 * nodes;
  r.median_layer = 0;
  r.median_layer_crosses_nodes = nodes > 1;
  r.headroom_lo_ms = lo_ms;
  r.headroom_ms = headroom_ms;
  r.headroom_hi_ms = hi_ms;
  r.step_ms = 100;
  return r;
}

TEST(ProjectStepModel, OneNodeIsNeverATippingPoint) {
  // One node: whatever its headroom reads, the fabric is not in the step.
  const ProjectionRow one = crossing_row(1, -3, -2, -1);
  ProjectionRow two = crossing_row(2, -3, -2, -1);
  EXPECT_FALSE(tipping_point({one}));
  ASSERT_TRUE(tipping_point({one, two}));
  EXPECT_TRUE(tipping_point({one, two})->firm());
  EXPECT_EQ(tipping_point({one, two})->nodes, 2);
  two.fits = false;  // a step that cannot run tips nothing
  EXPECT_FALSE(tipping_point({one, two}));
}

TEST(ProjectStepModel, ABandThatStraddlesZeroMakesTheTippingPointARange) {
  const std::vector<ProjectionRow> rows = {
      crossing_row(8, 1, 2, 3), crossing_row(16, -1, 1, 2), crossing_row(32, -2, -0.5, 1),
      crossing_row(64, -4, -2, -1)};
  const std::optional<TippingPoint> tip = tipping_point(rows);
  ASSERT_TRUE(tip);
  EXPECT_FALSE(tip->firm());
  EXPECT_EQ(tip->from_nodes, 16);
  EXPECT_EQ(tip->nodes, 32);
  EXPECT_EQ(tip->to_nodes, 64);
  EXPECT_EQ(tipping_text(tip).rfind("between 16 and 64 nodes", 0), 0u) << tipping_text(tip);
  const nlohmann::json j = tipping_json(tip);
  EXPECT_EQ(j["tipping_from_nodes"], 16);
  EXPECT_EQ(j["tipping_point_nodes"], 32);
  EXPECT_EQ(j["tipping_to_nodes"], 64);
}

TEST(ProjectStepModel, CollectivesInsideANodeDoNotTipAFabric) {
  // The median layer's headroom is negative, but its collectives stay on the node (EP or TP over
  // NVLink at 2 nodes): no tipping point; critical exposure across nodes would be one.
  ProjectionRow r = crossing_row(2, -3, -2, -1);
  r.median_layer_crosses_nodes = false;
  EXPECT_FALSE(tipping_point({r}));
  r.critical_fabric_exposed_ms = 2;  // 2% of the 100 ms step
  ASSERT_TRUE(tipping_point({r}));
  EXPECT_NE(tipping_point({r})->reason.find("across nodes on the critical path"), std::string::npos);
}

TEST(ProjectStepModel, MemoryIsCheckedAgainstTheModelledGpu) {
  ProjectionInputs in;
  in.request.model = "qwen2.5-72b";
  in.request.micro_batch = 1;
  in.request.seq = 2048;
  in.request.gpus_per_node = 8;
  in.model = one_nic_model();
  in.compute = parse_compute("model:h100", in.request);
  in.memory = memory_limit(MemoryFlags{}, in.compute, in.request);
  ASSERT_TRUE(in.memory);
  EXPECT_EQ(in.memory->budget.capacity_bytes, 80 * kGiB);
  EXPECT_EQ(in.memory->budget.tensor_room_bytes(),
            80 * kGiB - kCudaContextBytes - kNcclBuffersBytes);
  // 72.7B parameters on 8 GPUs: 8 bytes each of states alone is 68 GiB a GPU, plus activations.
  const ProjectionRow one_node = project_nodes(in, 1);
  ASSERT_TRUE(one_node.memory);
  EXPECT_FALSE(one_node.fits);
  EXPECT_TRUE(project_nodes(in, 4).fits);
  // The H200's own memory when it is the modelled GPU.
  EXPECT_EQ(memory_budget(MemoryFlags{}, parse_compute("model:h200", in.request)).capacity_bytes,
            141 * kGiB);
  EXPECT_EQ(memory_budget(MemoryFlags{40.0, "plan"}, in.compute).capacity_bytes, 40 * kGiB);
}

}  // namespace
}  // namespace collreplay::project
