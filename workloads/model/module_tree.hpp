// The model as PyTorch sees it: a tree of nn.Modules with their direct parameters in
// registration order (what named_parameters() and FSDP1's FlatParameter follow) and, separately,
// the order in which forward runs the children (input_layernorm runs before self_attn although it
// is registered after mlp). Leaves that run GEMMs say which ones, so compute slices and FSDP units
// come out of one walk.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/model/model.hpp"

namespace collreplay {

struct ParamTensor {
  std::string name;                 // "layers.3.self_attn.q_proj.weight"
  std::vector<std::int64_t> shape;  // dim 0 first (the dim FSDP2 shards)
  std::uint64_t numel() const;
};

// What a node runs. Nodes marked "synthetic" are not modules in PyTorch but the work a
// module's forward does between its children (eager_kernels.hpp lists their kernels).
enum class ComputeKind {
  none,             // containers
  linear,           // y = x W^T over `tokens` rows, or over the rows routed to `expert`
  attention_core,   // softmax(Q K^T) V over micro_batch x heads (synthetic child of self_attn)
  stacked_experts,  // transformers 5.x MixtralExperts: the expert loop over `experts_here`
  rms_norm,         // RMSNorm module
  layer_norm,       // nn.LayerNorm with its bias (GPT-NeoX)
  layer_norm_1p,    // Nemotron's LayerNorm1P: nn.LayerNorm run with weight + 1
  gelu,             // GELU between a non-gated MLP's two linears (synthetic)
  squared_relu,     // relu(x)^2 between a non-gated MLP's two linears (synthetic; Nemotron)
  embedding,        // embed_tokens lookup
  rotary_tables,    // cos/sin of the positions (synthetic, once per forward)
  rotary,           // rotary on q and k (synthetic, between the projections and the core)
  input_grads,      // `branches` linears read one input: their input grads are summed (synthetic)
  swiglu,           // SiLU(gate) * up (synthetic, before down_proj / w2)
  residual,         // the residual add after a block (synthetic)
  loss,             // logits to fp32, cross-entropy (synthetic, after lm_head)
  router,           // softmax / top-k after the router's gate (synthetic)
  expert_loop,      // the per-expert loop's set-up (synthetic, before the experts)
  expert_dispatch,  // per-expert layout: the expert's rows gathered (synthetic)
  expert_combine,   // per-expert layout: weighted rows added back (synthetic)
};

struct ModuleNode {
  std::string path;  // "" for the root (the CausalLM), "layers.3.mlp", ...
  int parent = -1;
  std::vector<int> children;        // registration order
  std::vector<int> exec_children;   // forward execution order
  std::vector<ParamTensor> params;  // direct parameters only
  bool module_list = false;         // nn.ModuleList: size_based_auto_wrap_policy never wraps it
  int layer = -1;                   // decoder layer index, -1 outside the decoder layers
  bool decoder_layer = false, attention = false, mlp = false, experts_container = false;
  bool router = false;
  bool head = false;  // the output projection to the vocabulary (lm_head, embed_out)
  // Norms inside a block (q_norm per head, MLA's q_a/kv_a_layernorm): rows per token; 0 for the
  // residual stream's norms, whose rows sequence parallelism splits.
  std::int64_t rows_per_token = 0;
  ComputeKind compute = ComputeKind::none;
  std::int64_t in_features = 0, out_features = 0;
  int expert = -1;    // linear of expert `expert` (rows routed to it); expert_dispatch/combine
  bool bias = false;  // linear with a bias (its gradient is a sum over the rows)
  int branches = 0;   // input_grads: linears sharing the input
  std::vector<int> experts_here;  // stacked_experts: experts whose GEMMs run here
};

struct ModuleTree {
  std::vector<ModuleNode> nodes;          // nodes[0] is the root
  int add(int parent, std::string name);  // appends a child in registration and execution order
};

struct TreeOptions {
  int layers = -1;               // -1: all
  bool stacked_experts = false;  // transformers 5.x layout instead of one Linear per expert
  int ep = 1;                    // expert-parallel degree
  int ep_index = 0;              // this rank's index in its expert group: which experts it holds
  // Tensor parallelism (Megatron / torchtitan): q, k, v, gate, up, expert w1/w3 and lm_head are
  // split by output (column), o_proj, down and expert w2 by input (row); the embedding by vocab
  // rows; norms and the router stay whole. Sizes are checked to divide beforehand.
  int tp = 1;
  // Per decoder layer: experts replicated onto every rank (their rows are computed locally).
  std::vector<std::vector<int>> replicated;
};

ModuleTree build_module_tree(const ModelConfig& model, const TreeOptions& options);

// Parameters in the subtree of `node` (all of them, nested units included).
std::uint64_t subtree_numel(const ModuleTree& tree, int node);

}  // namespace collreplay
