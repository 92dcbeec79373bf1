#include "workloads/model/module_tree.hpp"

#include <algorithm>

namespace collreplay {
namespace {

std::string join(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

ParamTensor tensor(const ModuleNode& node, const char* name, std::vector<std::int64_t> shape) {
  return ParamTensor{join(node.path, name), std::move(shape)};
}

// nn.Linear(in, out): weight [out, in] (+ bias [out]); runs one GEMM over its input rows.
int add_linear(ModuleTree& t, int parent, const std::string& name, std::int64_t in,
               std::int64_t out, bool bias, bool with_params = true) {
  const int id = t.add(parent, name);
  ModuleNode& n = t.nodes[id];
  n.compute = ComputeKind::linear;
  n.in_features = in;
  n.out_features = out;
  n.bias = bias;
  if (with_params) {
    n.params.push_back(tensor(n, "weight", {out, in}));
    if (bias) n.params.push_back(tensor(n, "bias", {out}));
  }
  return id;
}

int add_norm(ModuleTree& t, int parent, const std::string& name, std::int64_t hidden) {
  const int id = t.add(parent, name);
  t.nodes[id].params.push_back(tensor(t.nodes[id], "weight", {hidden}));
  t.nodes[id].compute = ComputeKind::rms_norm;
  t.nodes[id].in_features = hidden;
  return id;
}

// Work a module's forward does between its children, as a child of its own (no parameters).
int add_synthetic(ModuleTree& t, int parent, const std::string& name, ComputeKind kind,
                  std::int64_t in = 0, std::int64_t out = 0) {
  const int id = t.add(parent, name);
  t.nodes[id].compute = kind;
  t.nodes[id].in_features = in;
  t.nodes[id].out_features = out;
  return id;
}

// The input gradients of `branches` linears that read one tensor are summed in backward.
int add_input_grads(ModuleTree& t, int parent, int branches, std::int64_t width) {
  const int id = add_synthetic(t, parent, "input_grads", ComputeKind::input_grads, width, width);
  t.nodes[id].branches = branches;
  return id;
}

void add_attention(ModuleTree& t, int layer_node, const ModelConfig& m, int tp) {
  const int attn = t.add(layer_node, "self_attn");
  t.nodes[attn].attention = true;
  const std::int64_t q = m.heads * m.head_dim / tp, kv = m.kv_heads * m.head_dim / tp;
  const int qp = add_linear(t, attn, "q_proj", m.hidden, q, m.qkv_bias);
  const int kp = add_linear(t, attn, "k_proj", m.hidden, kv, m.qkv_bias);
  const int vp = add_linear(t, attn, "v_proj", m.hidden, kv, m.qkv_bias);
  const int op = add_linear(t, attn, "o_proj", q, m.hidden, m.o_bias);
  const int in = add_input_grads(t, attn, 3, m.hidden);
  const int rotary = add_synthetic(t, attn, "rotary", ComputeKind::rotary, q, kv);
  // Not a module in PyTorch: the scores/context batched GEMMs between v_proj and o_proj.
  const int core = add_synthetic(t, attn, "core", ComputeKind::attention_core);
  t.nodes[attn].exec_children = {in, qp, kp, vp, rotary, core, op};
}

// One expert as the released checkpoint has it: w1 (gate), w2 (down), w3 (up); runs w1, w3, w2.
void add_expert(ModuleTree& t, int experts, int e, const ModelConfig& m, bool with_params, int tp) {
  const int ex = t.add(experts, std::to_string(e) + (with_params ? "" : "(replica)"));
  const std::int64_t inter = m.intermediate / tp;
  const int w1 = add_linear(t, ex, "w1", m.hidden, inter, false, with_params);
  const int w2 = add_linear(t, ex, "w2", inter, m.hidden, false, with_params);
  const int w3 = add_linear(t, ex, "w3", m.hidden, inter, false, with_params);
  const int dispatch = add_synthetic(t, ex, "dispatch", ComputeKind::expert_dispatch);
  const int act = add_synthetic(t, ex, "act", ComputeKind::swiglu, inter, inter);
  const int combine = add_synthetic(t, ex, "combine", ComputeKind::expert_combine);
  for (int id : {w1, w2, w3, dispatch, act, combine}) t.nodes[id].expert = e;
  t.nodes[ex].exec_children = {dispatch, w1, w3, act, w2, combine};
}

void add_moe(ModuleTree& t, int layer_node, const ModelConfig& m, const TreeOptions& o, int layer) {
  const int per_rank = static_cast<int>(m.experts) / o.ep;
  const int first = o.ep_index * per_rank;
  const std::vector<int> none;
  const std::vector<int>& replicas =
      layer < static_cast<int>(o.replicated.size()) ? o.replicated[layer] : none;
  auto local = [&](int e) { return e >= first && e < first + per_rank; };
  const int block = t.add(layer_node, o.stacked_experts ? "mlp" : "block_sparse_moe");
  t.nodes[block].mlp = true;
  const int in = add_input_grads(t, block, 2, m.hidden);
  const int gate = add_linear(t, block, "gate", m.hidden, m.experts, false);
  t.nodes[gate].router = true;
  const int router = add_synthetic(t, block, "router", ComputeKind::router);
  if (o.stacked_experts) {
    const int ex = t.add(block, "experts");
    ModuleNode& n = t.nodes[ex];
    n.experts_container = true;
    n.compute = ComputeKind::stacked_experts;
    n.params.push_back(tensor(n, "gate_up_proj", {per_rank, 2 * m.intermediate / o.tp, m.hidden}));
    n.params.push_back(tensor(n, "down_proj", {per_rank, m.hidden, m.intermediate / o.tp}));
    for (int e = first; e < first + per_rank; ++e) n.experts_here.push_back(e);
    for (int e : replicas)
      if (!local(e)) n.experts_here.push_back(e);
    t.nodes[block].exec_children = {in, gate, router, ex};
    return;
  }
  const int ex = t.add(block, "experts");
  t.nodes[ex].experts_container = true;
  t.nodes[ex].module_list = true;
  const int loop = add_synthetic(t, ex, "loop", ComputeKind::expert_loop);
  for (int e = first; e < first + per_rank; ++e) add_expert(t, ex, e, m, true, o.tp);
  for (int e : replicas)
    if (!local(e)) add_expert(t, ex, e, m, false, o.tp);
  // The loop's set-up runs first; the synthetic node is registered first, so the order holds.
  (void)loop;
  t.nodes[block].exec_children = {in, gate, router, ex};
}

}  // namespace

std::uint64_t ParamTensor::numel() const {
  std::uint64_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::uint64_t>(d);  // sizes checked at load
  return n;
}

int ModuleTree::add(int parent, std::string name) {
  ModuleNode n;
  n.parent = parent;
  if (parent >= 0) {
    n.path = join(nodes[parent].path, name);
    n.layer = nodes[parent].layer;
  }
  nodes.push_back(std::move(n));
  const int id = static_cast<int>(nodes.size()) - 1;
  if (parent >= 0) {
    nodes[parent].children.push_back(id);
    nodes[parent].exec_children.push_back(id);
  }
  return id;
}

ModuleTree build_module_tree(const ModelConfig& m, const TreeOptions& o) {
  ModuleTree t;
  t.add(-1, "");
  // Paths drop HF's "model." prefix: units read "layers.3", "embed_tokens", "lm_head".
  const int model = t.add(0, "model");
  t.nodes[model].path = "model";
  const int embed = t.add(model, "embed_tokens");
  t.nodes[embed].path = "embed_tokens";
  t.nodes[embed].params.push_back(ParamTensor{"embed_tokens.weight", {m.vocab / o.tp, m.hidden}});
  t.nodes[embed].compute = ComputeKind::embedding;
  t.nodes[embed].in_features = m.vocab / o.tp;
  t.nodes[embed].out_features = m.hidden;
  const int tables = add_synthetic(t, model, "rotary_tables", ComputeKind::rotary_tables);
  t.nodes[tables].path = "rotary_tables";
  const int layers = t.add(model, "layers");
  t.nodes[layers].path = "layers";
  t.nodes[layers].module_list = true;
  const int n_layers =
      o.layers < 0 ? static_cast<int>(m.layers) : std::min(o.layers, static_cast<int>(m.layers));
  for (int l = 0; l < n_layers; ++l) {
    const int ln = t.add(layers, std::to_string(l));
    t.nodes[ln].layer = l;
    t.nodes[ln].decoder_layer = true;
    add_attention(t, ln, m, o.tp);
    if (m.is_moe()) {
      add_moe(t, ln, m, o, l);
    } else {
      const int mlp = t.add(ln, "mlp");
      t.nodes[mlp].mlp = true;
      const std::int64_t inter = m.intermediate / o.tp;
      const int gp = add_linear(t, mlp, "gate_proj", m.hidden, inter, false);
      const int up = add_linear(t, mlp, "up_proj", m.hidden, inter, false);
      const int dp = add_linear(t, mlp, "down_proj", inter, m.hidden, false);
      const int in = add_input_grads(t, mlp, 2, m.hidden);
      const int act = add_synthetic(t, mlp, "act", ComputeKind::swiglu, inter, inter);
      t.nodes[mlp].exec_children = {in, gp, up, act, dp};
    }
    const int in_norm = add_norm(t, ln, "input_layernorm", m.hidden);
    const int post_norm = add_norm(t, ln, "post_attention_layernorm", m.hidden);
    const int attn_add = add_synthetic(t, ln, "attn_residual", ComputeKind::residual, m.hidden);
    const int mlp_add = add_synthetic(t, ln, "mlp_residual", ComputeKind::residual, m.hidden);
    // Registered: self_attn, mlp, input_layernorm, post_attention_layernorm. Run: norm, attn,
    // residual add, norm, mlp, residual add.
    const auto& c = t.nodes[ln].children;
    t.nodes[ln].exec_children = {in_norm, c[0], attn_add, post_norm, c[1], mlp_add};
  }
  const int norm = add_norm(t, model, "norm", m.hidden);
  t.nodes[norm].path = "norm";
  t.nodes[norm].params[0].name = "norm.weight";
  // Tied embeddings: lm_head reuses embed_tokens.weight (counted once, held by embed_tokens' unit).
  const int head = add_linear(t, 0, "lm_head", m.hidden, m.vocab / o.tp, false, !m.tied_embeddings);
  const int loss = add_synthetic(t, 0, "loss", ComputeKind::loss, m.hidden, m.vocab / o.tp);
  t.nodes[0].exec_children = {model, head, loss};
  return t;
}

std::uint64_t subtree_numel(const ModuleTree& tree, int node) {
  std::uint64_t n = 0;
  for (const ParamTensor& p : tree.nodes[node].params) n += p.numel();
  for (int c : tree.nodes[node].children) n += subtree_numel(tree, c);
  return n;
}

}  // namespace collreplay
