// The pieces module_tree.cpp builds a model from, shared by its family files
// (attention_tree.cpp, moe_tree.cpp). Internal to workloads/model.
#pragma once
#include <cstdint>
#include <string>

#include "workloads/model/module_tree.hpp"

namespace collreplay::tree {

std::string join(const std::string& parent, const std::string& name);

// nn.Linear(in, out): weight [out, in] (+ bias [out]); runs one GEMM over its input rows.
int add_linear(ModuleTree& t, int parent, const std::string& name, std::int64_t in,
               std::int64_t out, bool bias, bool with_params = true);
// RMSNorm (weight) or, `layer_norm`, nn.LayerNorm (weight, bias) over `width`;
// rows_per_token: see ModuleNode (0: a residual-stream norm).
int add_norm(ModuleTree& t, int parent, const std::string& name, std::int64_t width,
             bool layer_norm = false, std::int64_t rows_per_token = 0);
// Work a module's forward does between its children, as a child of its own (no parameters).
int add_synthetic(ModuleTree& t, int parent, const std::string& name, ComputeKind kind,
                  std::int64_t in = 0, std::int64_t out = 0);
// The input gradients of `branches` linears that read one tensor are summed in backward.
int add_input_grads(ModuleTree& t, int parent, int branches, std::int64_t width);

// A SiLU-gated MLP (gate, up, down) named `name` under `parent`, `inter` wide (TP-local).
// Mixtral's experts name them w1 (gate), w3 (up), w2 (down) and register w2 before w3.
struct GatedNames {
  const char* gate = "gate_proj";
  const char* up = "up_proj";
  const char* down = "down_proj";
  bool down_before_up = false;
};
int add_gated_mlp(ModuleTree& t, int parent, const std::string& name, std::int64_t hidden,
                  std::int64_t inter, bool bias, const GatedNames& names = {});

// self_attn (or GPT-NeoX's attention) of one decoder layer, by the model's family.
int add_attention(ModuleTree& t, int layer_node, const ModelConfig& m, int tp);
// The MoE block of decoder layer `layer`, by the model's family and the options' layout.
int add_moe(ModuleTree& t, int layer_node, const ModelConfig& m, const TreeOptions& o, int layer);

}  // namespace collreplay::tree
