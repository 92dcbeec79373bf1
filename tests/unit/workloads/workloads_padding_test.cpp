// Every padding rule, at world sizes that need padding. Expected values derived independently
// from the shapes (see workloads/README.md, "How a layer's bytes come out of its shapes").
#include <gtest/gtest.h>

#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/fsdp_padding.hpp"

namespace collreplay {
namespace {

using test::request;
using test::unit;

struct Expect {
  int world;
  std::uint64_t fsdp1_layer, fsdp2_layer, root;
};

TEST(WorkloadsPadding, Qwen25_7bLayerAndRootAtOddWorlds) {
  const Expect cases[] = {{3, 466115586, 466196490, 2179996674},
                          {6, 466115592, 466439208, 2179996680},
                          {12, 466115592, 466439208, 2179996680},
                          {16, 466115584, 466115584, 2179996672},
                          {24, 466115616, 467410080, 2179996704}};
  for (const Expect& e : cases) {
    const Schedule f1 = build_schedule(request("qwen2.5-7b", e.world, "fsdp1"));
    const Schedule f2 = build_schedule(request("qwen2.5-7b", e.world, "fsdp2"));
    EXPECT_EQ(unit(f1, "layers.5").allgather_bytes, e.fsdp1_layer) << "world " << e.world;
    EXPECT_EQ(unit(f2, "layers.5").allgather_bytes, e.fsdp2_layer) << "world " << e.world;
    EXPECT_EQ(unit(f1, "root").allgather_bytes, e.root) << "world " << e.world;
    EXPECT_EQ(unit(f2, "root").allgather_bytes, e.root) << "world " << e.world;
    EXPECT_EQ(unit(f1, "layers.5").shard_bytes * static_cast<std::uint64_t>(e.world),
              e.fsdp1_layer);
    EXPECT_EQ(unit(f1, "layers.5").reduce_scatter_bytes, e.fsdp1_layer);
  }
}

TEST(WorkloadsPadding, Qwen25_72bLayer) {
  EXPECT_EQ(unit(build_schedule(request("qwen2.5-72b", 6, "fsdp1")), "layers.0").allgather_bytes,
            1755369480u);
  EXPECT_EQ(unit(build_schedule(request("qwen2.5-72b", 24, "fsdp2")), "layers.0").allgather_bytes,
            1757102208u);
}

TEST(WorkloadsPadding, FpReduceDoublesReduceScatterBytes) {
  WorkloadRequest q = request("qwen2.5-7b", 16);
  q.reduce_dtype = "fp32";
  const Schedule s = build_schedule(q);
  EXPECT_EQ(unit(s, "layers.0").allgather_bytes, 466115584u);
  EXPECT_EQ(unit(s, "layers.0").reduce_scatter_bytes, 2u * 466115584u);
}

TEST(WorkloadsPadding, MixtralStackedExpertsDoubleUnderFsdp2AtWorld16) {
  WorkloadRequest q = request("mixtral-8x7b", 16, "fsdp2");
  q.experts_layout = "stacked";
  EXPECT_EQ(unit(build_schedule(q), "layers.0").allgather_bytes, 5721178112u);
  // The released per-expert layout: nothing to pad under FSDP1, nor under FSDP2 at world 8.
  EXPECT_EQ(unit(build_schedule(request("mixtral-8x7b", 16, "fsdp1")), "layers.0").allgather_bytes,
            2902540288u);
  EXPECT_EQ(unit(build_schedule(request("mixtral-8x7b", 8, "fsdp2")), "layers.0").allgather_bytes,
            2902540288u);
  // FSDP2 per-expert at world 16: only the router gate [8, 4096] pads (8 -> 16 rows).
  EXPECT_EQ(unit(build_schedule(request("mixtral-8x7b", 16, "fsdp2")), "layers.0").allgather_bytes,
            2902540288u + 2u * 8 * 4096);
}

TEST(WorkloadsPadding, MixtralSubmoduleStackedAtWorld12And24) {
  for (const auto& [world, mlp] : {std::pair{12, 4227956736ull}, std::pair{24, 8455913472ull}}) {
    WorkloadRequest q = request("mixtral-8x7b", world, "fsdp2", "submodule");
    q.experts_layout = "stacked";
    const Schedule s = build_schedule(q);
    EXPECT_EQ(unit(s, "layers.3.self_attn").allgather_bytes, 84148224u);
    EXPECT_EQ(unit(s, "layers.3.mlp").allgather_bytes, mlp);
    EXPECT_EQ(unit(s, "layers.3").allgather_bytes, 16416u);  // the two norms, 4096 -> 4104 each
  }
}

TEST(WorkloadsPadding, UseOrigParamsAlignsEachStartTo16Bytes) {
  const ParamTensor a{"a", {3}}, b{"b", {5}}, c{"c", {2, 3}};
  const std::vector<const ParamTensor*> params = {&a, &b, &c};
  // bf16: starts at 0, 8, 16 -> 22 elements, padded to world 4 -> 24. Without alignment 14 -> 16.
  EXPECT_EQ(fsdp1_flat_numel(params, 4, true, DType::bf16), 24u);
  EXPECT_EQ(fsdp1_flat_numel(params, 4, false, DType::bf16), 16u);
  // fp32 aligns to 4 elements: 0, 4, 12 -> 18 -> world 3 -> 18.
  EXPECT_EQ(fsdp1_flat_numel(params, 3, true, DType::f32), 18u);
  // FSDP2: dim 0 to a multiple of the world: 3->4, 5->8, [2,3]->[4,3].
  EXPECT_EQ(fsdp2_unit_numel(params, 4), 4u + 8u + 12u);
  EXPECT_EQ(fsdp2_padded_numel(c, 3), 9u);
}

TEST(WorkloadsPadding, UseOrigParamsOnCatalogModelsChangesNothing) {
  WorkloadRequest q = request("qwen2.5-7b", 6);
  q.use_orig_params = true;
  EXPECT_EQ(unit(build_schedule(q), "layers.0").allgather_bytes,
            466115592u);  // every size is 8-aligned
}

TEST(WorkloadsPadding, ExpertParallelExpertsShardOverDataParallelGroup) {
  WorkloadRequest q = request("mixtral-8x7b", 12, "fsdp2");
  q.ep = 4;  // 2 experts per rank, data-parallel group of 3
  q.experts_layout = "stacked";
  const Schedule s = build_schedule(q);
  // [2, 28672, 4096] + [2, 4096, 14336]: dim 0 of 2 padded to 3.
  EXPECT_EQ(unit(s, "layers.0.mlp.experts").allgather_bytes,
            2ull * 3 * (28672ull * 4096 + 4096ull * 14336));
  const auto& ops = s.ops;
  const auto it = std::find_if(ops.begin(), ops.end(), [](const ScheduleOp& o) {
    return o.name == "ag.fwd.layers.0.mlp.experts";
  });
  ASSERT_NE(it, ops.end());
  EXPECT_EQ(it->collective().group, GroupKind::data_parallel);
}

}  // namespace
}  // namespace collreplay
