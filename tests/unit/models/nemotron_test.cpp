// The Nemotron family (transformers' modeling_nemotron.py): Nemotron-4 15B and 340B as NeMo's
// Nemotron4Config15B / Nemotron4Config340B give them, counted by hand: per layer q, o
// [h, h], k, v [kv_heads x head_dim, h], up [I, h], down [h, I], two LayerNorm1P of weight and
// bias; embed_tokens and an untied lm_head [vocab, h]; the final norm's weight and bias.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/model/model.hpp"
#include "workloads/model/module_tree.hpp"
#include "workloads/plan/layer_activations.hpp"

namespace collreplay {
namespace {

using test::unit;

// 15B: layer = 2 x 6144^2 + 2 x 1024 x 6144 + 2 x 24576 x 6144 + 4 x 6144 = 390,094,848;
// x 32 = 12,483,035,136; embeddings 2 x 256000 x 6144 = 3,145,728,000; norm 12,288.
TEST(ModelNemotron, Nemotron4_15bTotals) {
  const ModelTotals t = model_totals(load_model("nemotron-4-15b", ""));
  EXPECT_EQ(t.params, 15628775424u);
  EXPECT_EQ(t.params_without_embeddings, 12483047424u);
  EXPECT_EQ(t.active_params, t.params);
  EXPECT_EQ(short_count(t.params), "15.6B");
}

// 340B: head_dim 18432 / 96 = 192, k and v 8 x 192 = 1536 wide. Layer = 2 x 18432^2 +
// 2 x 1536 x 18432 + 2 x 73728 x 18432 + 4 x 18432 = 3,454,083,072; x 96; embeddings
// 2 x 256000 x 18432; norm 36,864. The technical report's "341B".
TEST(ModelNemotron, Nemotron4_340bTotals) {
  const ModelTotals t = model_totals(load_model("nemotron-4-340b", ""));
  EXPECT_EQ(t.params, 341029195776u);
  EXPECT_EQ(short_count(t.params), "341.0B");
}

TEST(ModelNemotron, ParametersInNamedParametersOrder) {
  TreeOptions o;
  o.layers = 1;
  const ModuleTree t = build_module_tree(load_model("nemotron-4-15b", ""), o);
  std::vector<std::string> names;
  for (const ModuleNode& n : t.nodes)
    for (const ParamTensor& p : n.params) names.push_back(p.name);
  const std::vector<std::string> expected = {
      "embed_tokens.weight",
      "layers.0.self_attn.q_proj.weight",
      "layers.0.self_attn.k_proj.weight",
      "layers.0.self_attn.v_proj.weight",
      "layers.0.self_attn.o_proj.weight",
      "layers.0.mlp.up_proj.weight",
      "layers.0.mlp.down_proj.weight",
      "layers.0.input_layernorm.weight",
      "layers.0.input_layernorm.bias",
      "layers.0.post_attention_layernorm.weight",
      "layers.0.post_attention_layernorm.bias",
      "norm.weight",
      "norm.bias",
      "lm_head.weight"};
  EXPECT_EQ(names, expected);
}

// Every compute op's GEMMs and kernels of one Nemotron-4 15B layer under TP 4 (seq 1024).
std::vector<std::string> labels_of(const Schedule& s, const std::string& op_prefix) {
  std::vector<std::string> labels;
  for (const ScheduleOp& op : s.ops) {
    if (op.is_collective() || op.name.rfind(op_prefix, 0) != 0) continue;
    for (const GemmShape& g : op.compute().gemms)
      labels.push_back(g.label + " " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                       std::to_string(g.k));
    for (const KernelSlice& k : op.compute().kernels)
      labels.push_back(k.label + " " + std::to_string(k.elements));
  }
  return labels;
}

bool has(const std::vector<std::string>& labels, const std::string& label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

TEST(ModelNemotron, GemmShapesUnderTensorParallelism) {
  WorkloadRequest q = test::request("nemotron-4-15b", 8);
  q.tp = 4;
  q.layers = 1;
  const Schedule s = build_schedule(q);
  const auto fwd = labels_of(s, "compute.fwd.");
  // Column-parallel q, k, v and up over 1024 tokens; row-parallel o and down.
  EXPECT_TRUE(has(fwd, "layers.0.self_attn.q_proj fwd 1024x1536x6144"));
  EXPECT_TRUE(has(fwd, "layers.0.self_attn.k_proj fwd 1024x256x6144"));
  EXPECT_TRUE(has(fwd, "layers.0.self_attn.o_proj fwd 1024x6144x1536"));
  EXPECT_TRUE(has(fwd, "layers.0.mlp.up_proj fwd 1024x6144x6144"));
  EXPECT_TRUE(has(fwd, "layers.0.mlp.down_proj fwd 1024x6144x6144"));
  EXPECT_TRUE(has(fwd, "lm_head fwd 1024x64000x6144"));
  for (const std::string& l : fwd) EXPECT_EQ(l.find("gate_proj"), std::string::npos) << l;
}

TEST(ModelNemotron, SquaredReluAndLayerNorm1pKernels) {
  WorkloadRequest q = test::request("nemotron-4-15b", 8);
  q.layers = 1;
  const Schedule s = build_schedule(q);
  const auto fwd = labels_of(s, "compute.fwd.");
  const auto bwd = labels_of(s, "compute.bwd.");
  const std::string e = std::to_string(1024ULL * 24576);
  EXPECT_TRUE(has(fwd, "layers.0.mlp.act: relu " + e));
  EXPECT_TRUE(has(fwd, "layers.0.mlp.act: square (pow 2) " + e));
  EXPECT_TRUE(has(bwd, "layers.0.mlp.act: relu backward (threshold_backward) " + e));
  EXPECT_TRUE(has(fwd, "layers.0.input_layernorm: weight + 1 6144"));
  EXPECT_TRUE(has(fwd, "layers.0.input_layernorm: native_layer_norm " + std::to_string(1024 * 6144)));
  EXPECT_TRUE(has(fwd, "norm: weight + 1 6144"));
  // Rotary turns 64 of each head's 128 dims (partial_rotary_factor 0.5); the cat joins all 128.
  EXPECT_TRUE(has(fwd, "layers.0.self_attn.rotary q: x * cos " + std::to_string(1024 * 48 * 64)));
  EXPECT_TRUE(has(fwd, "layers.0.self_attn.rotary k: cat(x_embed, x_pass) " +
                           std::to_string(1024 * 8 * 128)));
  for (const std::string& l : fwd) {
    EXPECT_EQ(l.find("silu"), std::string::npos) << l;
    EXPECT_EQ(l.find("pow(2)"), std::string::npos) << l;  // RMSNorm's
  }
}

// FLOPs of a layer: every Linear's 2 x tokens x in x out plus the causal-half attention core
// (scores and context, 2 x seq x seq/2 x head_dim x heads each), at seq 1024.
TEST(ModelNemotron, LayerFlopsAndFsdpUnits) {
  WorkloadRequest q = test::request("nemotron-4-15b", 8);
  q.layers = 2;
  const Schedule s = build_schedule(q);
  const double linear = 2.0 * 1024 * (390094848.0 - 4 * 6144);
  const double core = 2 * (2.0 * 1024 * 512 * 128 * 48);
  EXPECT_DOUBLE_EQ(unit(s, "layers.1").fwd_flops, linear + core);
  EXPECT_EQ(unit(s, "layers.1").params, 390094848u);
  EXPECT_EQ(unit(s, "layers.1").allgather_bytes, 390094848u * 2);  // divisible by 8: no padding
  EXPECT_EQ(unit(s, "root").params, 3145740288u);
}

TEST(ModelNemotron, ActivationsOfANonGatedLayer) {
  // Norms 4h; q, k, v, context; relu's output and the square: 2 I.
  const LayerActivations e =
      layer_activation_elements(load_model("nemotron-4-15b", ""), 0, false, false);
  EXPECT_EQ(e.whole, 4u * 6144);
  EXPECT_EQ(e.split, 6144u + 2 * 1024 + 6144 + 2 * 24576);
}

std::string error_of(const std::string& text) {
  try {
    parse_model_json(text, "dir/config.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelNemotron, ConfigDefaultsAndRefusals) {
  const std::string base =
      R"({"model_type":"nemotron","hidden_size":256,"intermediate_size":1024,)"
      R"("num_hidden_layers":2,"num_attention_heads":4,"vocab_size":1000)";
  const ModelConfig m = parse_model_json(base + "}", "x");
  EXPECT_EQ(m.kv_heads, 4);      // num_key_value_heads unset: multi-head attention
  EXPECT_EQ(m.rotary_dim(), 32);  // partial_rotary_factor defaults to 0.5 of head_dim 64
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.qkv_bias);
  const std::string act = error_of(base + R"(,"hidden_act":"gelu"})");
  EXPECT_NE(act.find("dir/config.json: hidden_act 'gelu' is not modelled for nemotron"),
            std::string::npos)
      << act;
  const std::string rot = error_of(base + R"(,"partial_rotary_factor":0})");
  EXPECT_NE(rot.find("'partial_rotary_factor' must be in (0, 1]"), std::string::npos) << rot;
  // attention_bias and mlp_bias as configuration_nemotron.py reads them.
  const ModelConfig b = parse_model_json(base + R"(,"attention_bias":true,"mlp_bias":true})", "x");
  EXPECT_TRUE(b.qkv_bias && b.o_bias && b.mlp_bias);
}

}  // namespace
}  // namespace collreplay
