// Each family's parameters as its published config.json and transformers' modeling file give
// them: totals against the published figures, active parameters, named_parameters() order.
#include <gtest/gtest.h>

#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/model/model.hpp"
#include "workloads/model/module_tree.hpp"

namespace collreplay {
namespace {

using test::hf_folder;

ModelTotals totals_of(const std::string& repo) { return model_totals(load_model(hf_folder(repo), "")); }

std::vector<std::string> layer_param_names(const ModelConfig& m, int layer) {
  TreeOptions o;
  o.layers = layer + 1;
  const ModuleTree t = build_module_tree(m, o);
  const std::string prefix = "layers." + std::to_string(layer) + ".";
  std::vector<std::string> names;
  for (const ModuleNode& n : t.nodes)
    for (const ParamTensor& p : n.params)
      if (p.name.rfind(prefix, 0) == 0) names.push_back(p.name.substr(prefix.size()));
  return names;
}

// Qwen3-30B-A3B's model card: 30.5B in total, 3.3B activated.
TEST(ModelFamilies, Qwen3_30bA3bTotals) {
  const ModelTotals t = totals_of("Qwen3-30B-A3B");
  // layer: q 4096x2048, k, v 512x2048, o 2048x4096, q/k_norm 128 each, router 128x2048,
  // 128 experts of 3 x 768x2048, two norms 2048; 48 layers; embed + lm_head 151936x2048; norm.
  EXPECT_EQ(t.params, 30532122624u);
  EXPECT_EQ(t.active_params, 3353032704u);
  EXPECT_EQ(short_count(t.params), "30.5B");
  EXPECT_EQ(short_count(t.active_params), "3.3B");
}

// DeepSeek-V3's report: 671B in total, 37B activated per token (the main model; the
// multi-token-prediction module transformers does not build is not in either).
TEST(ModelFamilies, DeepSeekV3Totals) {
  const ModelTotals t = totals_of("DeepSeek-V3");
  EXPECT_EQ(t.params, 671026404352u);
  EXPECT_EQ(t.active_params, 37552282624u);
  EXPECT_EQ(short_count(t.params), "671.0B");
  EXPECT_EQ(t.active_params / 1000000000, 37u);
}

TEST(ModelFamilies, DenseFamiliesMatchTheirPublishedCounts) {
  EXPECT_EQ(totals_of("Llama-3.1-8B").params, 8030261248u);
  EXPECT_EQ(totals_of("Mixtral-8x7B-v0.1").params, 46702792704u);
  // Pythia's table (EleutherAI): 6,857,302,016 parameters, 6,444,163,072 non-embedding.
  const ModelTotals pythia = totals_of("pythia-6.9b");
  EXPECT_EQ(pythia.params, 6857302016u);
  EXPECT_EQ(pythia.params_without_embeddings, 6444163072u);
}

// Qwen1.5-MoE-A2.7B: "14.3B parameters in total and 2.7B activated".
TEST(ModelFamilies, Qwen2MoeSharedExpertTotals) {
  const ModelTotals t = totals_of("Qwen1.5-MoE-A2.7B");
  EXPECT_EQ(t.params, 14315784192u);
  EXPECT_EQ(short_count(t.params), "14.3B");
  EXPECT_EQ(t.active_params, 2689173504u);  // 2.69B, which Qwen rounds to 2.7B
}

TEST(ModelFamilies, Qwen3MoeParameterOrder) {
  const ModelConfig m = load_model(hf_folder("Qwen3-30B-A3B"), "");
  const auto names = layer_param_names(m, 0);
  ASSERT_EQ(names.size(), 6u + 1 + 128 * 3 + 2);
  const std::vector<std::string> head = {"self_attn.q_proj.weight", "self_attn.k_proj.weight",
                                         "self_attn.v_proj.weight", "self_attn.o_proj.weight",
                                         "self_attn.q_norm.weight", "self_attn.k_norm.weight",
                                         "mlp.gate.weight",         "mlp.experts.0.gate_proj.weight",
                                         "mlp.experts.0.up_proj.weight",
                                         "mlp.experts.0.down_proj.weight"};
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 10), head);
  EXPECT_EQ(names.back(), "post_attention_layernorm.weight");
}

TEST(ModelFamilies, DeepSeekV3ParameterOrderDenseThenMoe) {
  const ModelConfig m = load_model(hf_folder("DeepSeek-V3"), "");
  const std::vector<std::string> attn = {
      "self_attn.q_a_proj.weight",           "self_attn.q_a_layernorm.weight",
      "self_attn.q_b_proj.weight",           "self_attn.kv_a_proj_with_mqa.weight",
      "self_attn.kv_a_layernorm.weight",     "self_attn.kv_b_proj.weight",
      "self_attn.o_proj.weight",             "mlp.gate_proj.weight",
      "mlp.up_proj.weight",                  "mlp.down_proj.weight",
      "input_layernorm.weight",              "post_attention_layernorm.weight"};
  EXPECT_EQ(layer_param_names(m, 2), attn);  // first_k_dense_replace 3: layers 0-2 dense
  const auto moe = layer_param_names(m, 3);
  ASSERT_EQ(moe.size(), 7u + 256 * 3 + 1 + 3 + 2);
  EXPECT_EQ(moe[7], "mlp.experts.0.gate_proj.weight");
  EXPECT_EQ(moe[7 + 256 * 3], "mlp.gate.weight");  // DeepseekV3MoE: experts, gate, shared
  EXPECT_EQ(moe[8 + 256 * 3], "mlp.shared_experts.gate_proj.weight");
  EXPECT_FALSE(m.moe_layer(2));
  EXPECT_TRUE(m.moe_layer(3));
}

TEST(ModelFamilies, Qwen2MoeAndGptNeoxParameterOrder) {
  const auto qwen = layer_param_names(load_model(hf_folder("Qwen1.5-MoE-A2.7B"), ""), 0);
  ASSERT_EQ(qwen.size(), 7u + 1 + 60 * 3 + 3 + 1 + 2);
  EXPECT_EQ(qwen[0], "self_attn.q_proj.weight");
  EXPECT_EQ(qwen[1], "self_attn.q_proj.bias");
  EXPECT_EQ(qwen[7], "mlp.gate.weight");
  EXPECT_EQ(qwen[8 + 60 * 3], "mlp.shared_expert.gate_proj.weight");
  EXPECT_EQ(qwen[11 + 60 * 3], "mlp.shared_expert_gate.weight");
  const std::vector<std::string> neox = {
      "input_layernorm.weight",          "input_layernorm.bias",
      "post_attention_layernorm.weight", "post_attention_layernorm.bias",
      "attention.query_key_value.weight", "attention.query_key_value.bias",
      "attention.dense.weight",          "attention.dense.bias",
      "mlp.dense_h_to_4h.weight",        "mlp.dense_h_to_4h.bias",
      "mlp.dense_4h_to_h.weight",        "mlp.dense_4h_to_h.bias"};
  EXPECT_EQ(layer_param_names(load_model(hf_folder("pythia-6.9b"), ""), 0), neox);
}

}  // namespace
}  // namespace collreplay
