// FSDP1 / FSDP2 unit sizes and compute of the new families, worked out by hand from the
// published configs (FSDP2 pads every tensor's dim 0 to a multiple of the group; FSDP1 pads the
// unit's flat numel), and MLA's and the experts' GEMM FLOPs.
#include <gtest/gtest.h>

#include "tests/unit/models/hf_fixture.hpp"
#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using test::hf_folder;
using test::unit;

Schedule schedule_of(const std::string& repo, const std::string& plan, int world, int layers) {
  WorkloadRequest q = test::request(hf_folder(repo), world, plan);
  q.layers = layers;
  return build_schedule(q);
}

TEST(ModelFamilyUnits, Qwen3MoeLayer) {
  // 623,120,640 parameters a layer, divisible by 8: no FSDP1 padding.
  EXPECT_EQ(unit(schedule_of("Qwen3-30B-A3B", "fsdp1", 8, 2), "layers.1").allgather_bytes,
            623120640u * 2);
  // World 24: q 4096 -> 4104 rows, k, v 512 -> 528, o and every down_proj 2048 -> 2064,
  // q_norm, k_norm and the router 128 -> 144, the norms 2048 -> 2064.
  EXPECT_EQ(unit(schedule_of("Qwen3-30B-A3B", "fsdp2", 24, 2), "layers.1").allgather_bytes,
            1249747584u);
}

TEST(ModelFamilyUnits, DeepSeekV3DenseAndMoeLayers) {
  const Schedule s = schedule_of("DeepSeek-V3", "fsdp1", 8, 4);
  EXPECT_EQ(unit(s, "layers.0").allgather_bytes, 583483392u * 2);
  EXPECT_EQ(unit(s, "layers.3").allgather_bytes, 11507286016u * 2);
  // World 24: kv_a_layernorm 512 -> 528, kv_b_proj 32768 -> 32784, o_proj, down_proj and the
  // norms 7168 -> 7176 rows.
  EXPECT_EQ(unit(schedule_of("DeepSeek-V3", "fsdp2", 24, 1), "layers.0").allgather_bytes,
            1167540288u);
}

TEST(ModelFamilyUnits, GptNeoxLayer) {
  const Schedule s = schedule_of("pythia-6.9b", "fsdp1", 8, 2);
  EXPECT_EQ(unit(s, "layers.0").allgather_bytes, 201379840u * 2);
  EXPECT_EQ(unit(schedule_of("pythia-6.9b", "fsdp2", 24, 2), "layers.0").allgather_bytes,
            403153008u);
  EXPECT_GT(unit(s, "root").allgather_bytes, 2u * 50432 * 4096 * 2 - 1);  // embed_in, embed_out
}

// MLA: q and k are 192 wide a head (128 nope + 64 rope), v 128; every projection a GEMM over
// the tokens. Dense layer 0 at seq 1024, micro-batch 1.
TEST(ModelFamilyUnits, DeepSeekV3AttentionFlops) {
  const Schedule s = schedule_of("DeepSeek-V3", "fsdp1", 8, 1);
  const double tokens = 1024, keys = 512, heads = 128;
  const double norms = 1536 + 512 + 2 * 7168;
  const double linear = 2 * tokens * (583483392.0 - norms);
  const double core = 2 * tokens * keys * heads * (192 + 128);
  EXPECT_DOUBLE_EQ(unit(s, "layers.0").fwd_flops, linear + core);
}

// A MoE layer runs its router, the shared expert on every token and top_k routed experts a token.
TEST(ModelFamilyUnits, DeepSeekV3MoeLayerFlops) {
  const Schedule s = schedule_of("DeepSeek-V3", "fsdp1", 8, 4);
  const double tokens = 1024, keys = 512, heads = 128, h = 7168;
  const double attention = 187107328.0 - 1536 - 512;  // the layer's attention, less its norms
  const double every_token = attention + 256 * h + 3 * h * 2048;  // + router + shared expert
  const double routed = tokens * 8 * 3 * h * 2048;
  const double core = 2 * tokens * keys * heads * (192 + 128);
  EXPECT_DOUBLE_EQ(unit(s, "layers.3").fwd_flops, 2 * tokens * every_token + 2 * routed + core);
}

// Tensor parallelism splits MLA as torchtitan's DeepSeek-V3 plan does: q_b_proj, kv_b_proj (by
// column) and o_proj (by row) 8 ways; q_a_proj, kv_a_proj_with_mqa and the norms whole.
TEST(ModelFamilyUnits, DeepSeekV3TensorParallelLayer) {
  WorkloadRequest q = test::request(hf_folder("DeepSeek-V3"), 8, "fsdp1");
  q.tp = 8;
  q.layers = 1;
  const std::uint64_t whole = 7168 * 1536 + 1536 + 7168 * 576 + 512 + 2 * 7168;
  const std::uint64_t split = (1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * 7168 +
                               3 * 7168 * 18432) / 8;
  EXPECT_EQ(unit(build_schedule(q), "layers.0").allgather_bytes, (whole + split) * 2);
}

// Fine-grained MoE with expert parallelism: 128 experts top-8 over 8 ranks, skewed routing.
// Every rank sends each token's 8 rows (2048 bf16 elements each) whatever the skew; the skew
// moves the rows between ranks. DeepSeek's dense layers send nothing.
TEST(ModelFamilyUnits, FineGrainedExpertParallelAllToAll) {
  WorkloadRequest q = test::request(hf_folder("Qwen3-30B-A3B"), 8, "fsdp2");
  q.ep = 8;
  q.layers = 2;
  q.routing = "zipf:1.2";
  const Schedule s = build_schedule(q);
  ASSERT_EQ(s.moe.size(), 2u);
  for (const MoeLayerSummary& m : s.moe) EXPECT_EQ(m.dispatch_send_bytes, 1024u * 8 * 2048 * 2);
  EXPECT_EQ(schedule_totals(s).alltoalls, 2u * 6);  // dispatch, combine: fwd, recompute, bwd
  EXPECT_EQ(unit(s, "layers.0.mlp.experts").allgather_bytes, 16u * 3 * 768 * 2048 * 2);
  WorkloadRequest d = test::request(hf_folder("DeepSeek-V3"), 8, "fsdp2");
  d.ep = 8;
  d.layers = 4;
  const Schedule ds = build_schedule(d);
  EXPECT_EQ(schedule_totals(ds).alltoalls, 6u);  // layer 3 only
  EXPECT_EQ(ds.moe[0].dispatch_send_bytes, 0u);
}

// --experts grouped: the rank's experts run as one (batched) GEMM per projection, with the
// looped experts' FLOPs to the mean-row rounding and none of their host syncs.
TEST(ModelFamilyUnits, GroupedExpertsKeepTheFlops) {
  WorkloadRequest q = test::request(hf_folder("Qwen3-30B-A3B"), 8, "fsdp2");
  q.ep = 8;
  q.layers = 1;
  const Schedule looped = build_schedule(q);
  q.experts = "grouped";
  const Schedule grouped = build_schedule(q);
  const double lf = unit(looped, "layers.0.mlp.experts").fwd_flops;
  const double gf = unit(grouped, "layers.0.mlp.experts").fwd_flops;
  EXPECT_NEAR(gf / lf, 1.0, 0.01);
  EXPECT_LT(schedule_totals(grouped).syncs[0], schedule_totals(looped).syncs[0]);
  q.experts = "batched";
  EXPECT_THROW(build_schedule(q), UsageError);
}

}  // namespace
}  // namespace collreplay
