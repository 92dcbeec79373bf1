// Each family's mixture-of-experts block as transformers registers and runs it, in the expert
// layout asked for: one module per expert (transformers 4.x) or stacked tensors (5.x).
#include "workloads/model/tree_parts.hpp"

namespace collreplay::tree {
namespace {

ParamTensor stacked(const ModuleNode& n, const char* name, std::vector<std::int64_t> shape) {
  return ParamTensor{join(n.path, name), std::move(shape)};
}

// One expert with its own GEMMs over the rows routed to it: dispatch, gate, up, act, down,
// combine. Replicas (hot experts computed on every rank) hold no parameters.
void add_expert(ModuleTree& t, int experts, int e, const ModelConfig& m, bool with_params, int tp,
                const GatedNames& names) {
  const int ex = t.add(experts, std::to_string(e) + (with_params ? "" : "(replica)"));
  const std::int64_t inter = m.expert_intermediate / tp;
  const int gate = add_linear(t, ex, names.gate, m.hidden, inter, false, with_params);
  int up = -1, down = -1;
  if (names.down_before_up) {
    down = add_linear(t, ex, names.down, inter, m.hidden, false, with_params);
    up = add_linear(t, ex, names.up, m.hidden, inter, false, with_params);
  } else {
    up = add_linear(t, ex, names.up, m.hidden, inter, false, with_params);
    down = add_linear(t, ex, names.down, inter, m.hidden, false, with_params);
  }
  const int dispatch = add_synthetic(t, ex, "dispatch", ComputeKind::expert_dispatch);
  const int act = add_synthetic(t, ex, "act", ComputeKind::swiglu, inter, inter);
  const int combine = add_synthetic(t, ex, "combine", ComputeKind::expert_combine);
  for (int id : {gate, up, down, dispatch, act, combine}) t.nodes[id].expert = e;
  t.nodes[ex].exec_children = {dispatch, gate, up, act, down, combine};
}

// The routed experts container of one layer: the rank's own experts (all without expert
// parallelism) and the replicas it computes.
int add_experts(ModuleTree& t, int block, const ModelConfig& m, const TreeOptions& o, int layer,
                const GatedNames& names) {
  const int per_rank = static_cast<int>(m.experts) / o.ep;
  const int first = o.ep_index * per_rank;
  const std::vector<int> none;
  const std::vector<int>& replicas =
      layer < static_cast<int>(o.replicated.size()) ? o.replicated[layer] : none;
  auto local = [&](int e) { return e >= first && e < first + per_rank; };
  const int ex = t.add(block, "experts");
  ModuleNode& n = t.nodes[ex];
  n.experts_container = true;
  const std::int64_t inter = m.expert_intermediate / o.tp;
  if (o.stacked_experts) {
    n.compute = ComputeKind::stacked_experts;
    n.params.push_back(stacked(n, "gate_up_proj", {per_rank, 2 * inter, m.hidden}));
    n.params.push_back(stacked(n, "down_proj", {per_rank, m.hidden, inter}));
    for (int e = first; e < first + per_rank; ++e) n.experts_here.push_back(e);
    for (int e : replicas)
      if (!local(e)) n.experts_here.push_back(e);
    return ex;
  }
  n.module_list = true;
  // The loop's set-up runs first; the synthetic node is registered first, so the order holds.
  add_synthetic(t, ex, "loop", ComputeKind::expert_loop);
  for (int e = first; e < first + per_rank; ++e) add_expert(t, ex, e, m, true, o.tp, names);
  for (int e : replicas)
    if (!local(e)) add_expert(t, ex, e, m, false, o.tp, names);
  return ex;
}

int add_router(ModuleTree& t, int block, const ModelConfig& m) {
  const int gate = add_linear(t, block, "gate", m.hidden, m.experts, false);
  t.nodes[gate].router = true;
  return gate;
}

}  // namespace

// modeling_mixtral.py MixtralSparseMoeBlock: gate, experts (w1, w2, w3 each; 5.x: stacked).
// modeling_qwen2_moe.py: gate, experts, shared_expert, shared_expert_gate (Linear(hidden, 1)).
// modeling_qwen3_moe.py: gate, experts. modeling_deepseek_v3.py DeepseekV3MoE: experts, gate
// (DeepseekV3TopkRouter: weight [n_routed_experts, hidden]), shared_experts. All run the router,
// then the routed experts, then the shared expert on every token.
int add_moe(ModuleTree& t, int layer_node, const ModelConfig& m, const TreeOptions& o, int layer) {
  const bool mixtral = m.family == ModelFamily::mixtral;
  const bool deepseek = m.family == ModelFamily::deepseek_v3;
  const int block = t.add(layer_node, mixtral && !o.stacked_experts ? "block_sparse_moe" : "mlp");
  t.nodes[block].mlp = true;
  const GatedNames names = mixtral ? GatedNames{"w1", "w3", "w2", true} : GatedNames{};
  const int readers = 2 + (m.shared_intermediate > 0 ? 1 : 0) + (m.shared_expert_gate ? 1 : 0);
  const int in = add_input_grads(t, block, readers, m.hidden);
  int experts = -1, gate = -1;
  if (deepseek) {
    experts = add_experts(t, block, m, o, layer, names);
    gate = add_router(t, block, m);
  } else {
    gate = add_router(t, block, m);
    experts = add_experts(t, block, m, o, layer, names);
  }
  const int router = add_synthetic(t, block, "router", ComputeKind::router);
  std::vector<int> run = {in, gate, router, experts};
  if (m.shared_intermediate > 0)
    run.push_back(add_gated_mlp(t, block, deepseek ? "shared_experts" : "shared_expert", m.hidden,
                                m.shared_intermediate / o.tp, false));
  if (m.shared_expert_gate) run.push_back(add_linear(t, block, "shared_expert_gate", m.hidden, 1, false));
  t.nodes[block].exec_children = run;
  return block;
}

}  // namespace collreplay::tree
