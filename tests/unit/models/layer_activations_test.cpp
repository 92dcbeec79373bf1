// Per-token activation elements by family, for advise's memory model.
#include <gtest/gtest.h>

#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/plan/layer_activations.hpp"

namespace collreplay {
namespace {

TEST(ModelLayerActivations, LlamaShapeIsAdvisesCount) {
  // Qwen2.5-7B: norms 4h, q + 2 kv + context, 4 intermediate (bench/advise's formula).
  const LayerActivations e =
      layer_activation_elements(load_model("qwen2.5-7b", ""), 0, false, false);
  EXPECT_EQ(e.whole, 4u * 3584);
  EXPECT_EQ(e.split, 3584u + 2 * 512 + 3584 + 4 * 18944);
}

TEST(ModelLayerActivations, SequenceShardsOfTheNormsByTpStyle) {
  const ModelConfig m = load_model("qwen2.5-7b", "");
  const std::uint64_t rest = 3584u + 2 * 512 + 3584 + 4 * 18944;
  // torch's SequenceParallel: the norms' inputs are shards, their gathered outputs stay whole.
  const LayerActivations torch_tp = layer_activation_elements(m, 0, true, false);
  EXPECT_EQ(torch_tp.whole, 2u * 3584);
  EXPECT_EQ(torch_tp.split, 2u * 3584 + rest);
  // Megatron keeps every saved input as its sequence shard.
  const LayerActivations megatron = layer_activation_elements(m, 0, true, true);
  EXPECT_EQ(megatron.whole, 0u);
  EXPECT_EQ(megatron.split, 4u * 3584 + rest);
  // Without sequence parallelism there is no shard to keep.
  EXPECT_EQ(layer_activation_elements(m, 0, false, true).whole, 4u * 3584);
}

TEST(ModelLayerActivations, FineGrainedExpertsUseTheirOwnWidth) {
  const ModelConfig q3 = load_model(test::hf_folder("Qwen3-30B-A3B"), "");
  const LayerActivations e = layer_activation_elements(q3, 0, false, false);
  EXPECT_EQ(e.whole, 4u * 2048 + 128 + 2 * 8 * 2048);
  EXPECT_EQ(e.split, (4096u + 2 * 512 + 4096 + 4096 + 512) + 4 * 8 * 768);
}

TEST(ModelLayerActivations, DeepSeekDenseThenMoeWithSharedExpert) {
  const ModelConfig ds = load_model(test::hf_folder("DeepSeek-V3"), "");
  // q_a out and its norm, kv_a out and its norm, kv_b out, q and k (192 a head), v and context.
  const std::uint64_t mla =
      2 * 1536 + (512 + 64) + 512 + 128 * 256 + 2 * 128 * 192 + 2 * 128 * 128;
  EXPECT_EQ(layer_activation_elements(ds, 0, false, false).split, mla + 4 * 18432);
  EXPECT_EQ(layer_activation_elements(ds, 3, false, false).split, mla + 4 * 8 * 2048 + 4 * 2048);
  EXPECT_EQ(layer_activation_elements(ds, 3, false, false).whole, 4u * 7168 + 256 + 2 * 8 * 7168);
}

}  // namespace
}  // namespace collreplay
