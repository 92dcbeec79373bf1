#include "workloads/model/module_tree.hpp"

#include <algorithm>

#include "workloads/model/tree_parts.hpp"

namespace collreplay {
namespace tree {

std::string join(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "." + name;
}

namespace {
ParamTensor tensor(const ModuleNode& node, const char* name, std::vector<std::int64_t> shape) {
  return ParamTensor{join(node.path, name), std::move(shape)};
}
}  // namespace

int add_linear(ModuleTree& t, int parent, const std::string& name, std::int64_t in,
               std::int64_t out, bool bias, bool with_params) {
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

int add_norm(ModuleTree& t, int parent, const std::string& name, std::int64_t width,
             bool layer_norm, std::int64_t rows_per_token) {
  const int id = t.add(parent, name);
  ModuleNode& n = t.nodes[id];
  n.params.push_back(tensor(n, "weight", {width}));
  if (layer_norm) n.params.push_back(tensor(n, "bias", {width}));
  n.compute = layer_norm ? ComputeKind::layer_norm : ComputeKind::rms_norm;
  n.in_features = width;
  n.rows_per_token = rows_per_token;
  return id;
}

int add_synthetic(ModuleTree& t, int parent, const std::string& name, ComputeKind kind,
                  std::int64_t in, std::int64_t out) {
  const int id = t.add(parent, name);
  t.nodes[id].compute = kind;
  t.nodes[id].in_features = in;
  t.nodes[id].out_features = out;
  return id;
}

int add_input_grads(ModuleTree& t, int parent, int branches, std::int64_t width) {
  const int id = add_synthetic(t, parent, "input_grads", ComputeKind::input_grads, width, width);
  t.nodes[id].branches = branches;
  return id;
}

int add_gated_mlp(ModuleTree& t, int parent, const std::string& name, std::int64_t hidden,
                  std::int64_t inter, bool bias, const GatedNames& names) {
  const int mlp = t.add(parent, name);
  const int gp = add_linear(t, mlp, names.gate, hidden, inter, bias);
  int up = -1, dp = -1;
  if (names.down_before_up) {
    dp = add_linear(t, mlp, names.down, inter, hidden, bias);
    up = add_linear(t, mlp, names.up, hidden, inter, bias);
  } else {
    up = add_linear(t, mlp, names.up, hidden, inter, bias);
    dp = add_linear(t, mlp, names.down, inter, hidden, bias);
  }
  const int in = add_input_grads(t, mlp, 2, hidden);
  const int act = add_synthetic(t, mlp, "act", ComputeKind::swiglu, inter, inter);
  t.nodes[mlp].exec_children = {in, gp, up, act, dp};
  return mlp;
}

}  // namespace tree

namespace {

using namespace tree;

// modeling_nemotron.py NemotronMLP: up_proj, down_proj (mlp_bias), ReLUSquaredActivation between.
int add_squared_relu_mlp(ModuleTree& t, int parent, const ModelConfig& m, std::int64_t inter) {
  const int mlp = t.add(parent, "mlp");
  const int up = add_linear(t, mlp, "up_proj", m.hidden, inter, m.mlp_bias);
  const int down = add_linear(t, mlp, "down_proj", inter, m.hidden, m.mlp_bias);
  const int act = add_synthetic(t, mlp, "act", ComputeKind::squared_relu, inter, inter);
  t.nodes[mlp].exec_children = {up, act, down};
  return mlp;
}

// The residual stream's norm of the family: RMSNorm, or Nemotron's LayerNorm1P (nn.LayerNorm
// with weight and bias, run with weight + 1).
int add_stream_norm(ModuleTree& t, int parent, const std::string& name, const ModelConfig& m) {
  const int id = add_norm(t, parent, name, m.hidden, m.layer_norm());
  if (m.is_nemotron()) t.nodes[id].compute = ComputeKind::layer_norm_1p;
  return id;
}

// Llama and its descendants (Nemotron too): self_attn, mlp, input_layernorm,
// post_attention_layernorm registered; run as norm, attention, residual add, norm, MLP, residual add.
void add_decoder_layer(ModuleTree& t, int ln, const ModelConfig& m, const TreeOptions& o, int l) {
  const int attn = add_attention(t, ln, m, o.tp);
  int mlp = -1;
  if (m.moe_layer(l)) {
    mlp = add_moe(t, ln, m, o, l);
  } else if (m.is_nemotron()) {
    mlp = add_squared_relu_mlp(t, ln, m, m.intermediate / o.tp);
  } else {
    mlp = add_gated_mlp(t, ln, "mlp", m.hidden, m.intermediate / o.tp, m.mlp_bias);
  }
  t.nodes[mlp].mlp = true;
  const int in_norm = add_stream_norm(t, ln, "input_layernorm", m);
  const int post_norm = add_stream_norm(t, ln, "post_attention_layernorm", m);
  const int attn_add = add_synthetic(t, ln, "attn_residual", ComputeKind::residual, m.hidden);
  const int mlp_add = add_synthetic(t, ln, "mlp_residual", ComputeKind::residual, m.hidden);
  t.nodes[ln].exec_children = {in_norm, attn, attn_add, post_norm, mlp, mlp_add};
}

// modeling_gpt_neox.py GPTNeoXLayer: input_layernorm, post_attention_layernorm, attention, mlp
// registered (dropouts hold nothing); parallel residual: x + attn(ln1(x)) + mlp(ln2(x)).
void add_neox_layer(ModuleTree& t, int ln, const ModelConfig& m, const TreeOptions& o) {
  const int in_norm = add_norm(t, ln, "input_layernorm", m.hidden, true);
  const int post_norm = add_norm(t, ln, "post_attention_layernorm", m.hidden, true);
  const int attn = add_attention(t, ln, m, o.tp);
  const int mlp = t.add(ln, "mlp");
  t.nodes[mlp].mlp = true;
  const std::int64_t inter = m.intermediate / o.tp;
  const int up = add_linear(t, mlp, "dense_h_to_4h", m.hidden, inter, true);
  const int down = add_linear(t, mlp, "dense_4h_to_h", inter, m.hidden, true);
  const int act = add_synthetic(t, mlp, "act", ComputeKind::gelu, inter, inter);
  t.nodes[mlp].exec_children = {up, act, down};
  const int attn_add = add_synthetic(t, ln, "attn_residual", ComputeKind::residual, m.hidden);
  const int mlp_add = add_synthetic(t, ln, "mlp_residual", ComputeKind::residual, m.hidden);
  if (m.parallel_residual) {
    // Both norms read the layer's input: their input gradients are summed in backward.
    const int in = add_input_grads(t, ln, 2, m.hidden);
    t.nodes[ln].exec_children = {in, in_norm, attn, post_norm, mlp, attn_add, mlp_add};
  } else {
    t.nodes[ln].exec_children = {in_norm, attn, attn_add, post_norm, mlp, mlp_add};
  }
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
  const bool neox = m.is_neox();
  ModuleTree t;
  t.add(-1, "");
  // Paths drop HF's "model." ("gpt_neox.") prefix: units read "layers.3", "embed_tokens".
  const int model = t.add(0, neox ? "gpt_neox" : "model");
  t.nodes[model].path = "model";
  const std::string embed_name = neox ? "embed_in" : "embed_tokens";
  const int embed = t.add(model, embed_name);
  t.nodes[embed].path = embed_name;
  t.nodes[embed].params.push_back(ParamTensor{embed_name + ".weight", {m.vocab / o.tp, m.hidden}});
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
    if (neox)
      add_neox_layer(t, ln, m, o);
    else
      add_decoder_layer(t, ln, m, o, l);
  }
  const std::string norm_name = neox ? "final_layer_norm" : "norm";
  const int norm = neox ? add_norm(t, model, norm_name, m.hidden, true)
                        : add_stream_norm(t, model, norm_name, m);
  t.nodes[norm].path = norm_name;
  for (ParamTensor& p : t.nodes[norm].params) p.name = p.name.substr(p.name.find('.') + 1);
  // Tied embeddings: lm_head reuses embed_tokens.weight (counted once, held by embed_tokens' unit).
  const int head = add_linear(t, 0, neox ? "embed_out" : "lm_head", m.hidden, m.vocab / o.tp,
                              false, !m.tied_embeddings);
  t.nodes[head].head = true;
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
