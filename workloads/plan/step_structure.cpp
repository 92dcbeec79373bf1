#include "workloads/plan/step_structure.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "common/sizes.hpp"
#include "workloads/model/eager_kernels.hpp"
#include "workloads/plan/fsdp_padding.hpp"
#include "workloads/plan/pipeline/stage_tree.hpp"

namespace collreplay {
namespace {

std::string common_path(const std::string& a, const std::string& b) {
  std::size_t i = 0, last_dot = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '.') last_dot = i;
    ++i;
  }
  if (i == a.size() && (i == b.size() || b[i] == '.')) return a;
  if (i == b.size() && a[i] == '.') return b;
  return a.substr(0, last_dot);
}

// Walks the tree in forward execution order, cutting segments and recording unit positions.
class Walker {
 public:
  Walker(const ResolvedRequest& r, const std::vector<MoeLayerTraffic>& traffic, StepStructure& s,
         const std::vector<int>& unit_of_node, const std::vector<int>& owner)
      : r_(r), traffic_(traffic), s_(s), unit_of_node_(unit_of_node), owner_(owner) {}

  void walk(int id) {
    const ModuleNode& n = s_.tree.nodes[id];
    const int unit = unit_of_node_[id];
    const bool boundary = (unit >= 0 && s_.units[unit].params > 0) || n.decoder_layer;
    if (boundary) close();
    const bool lm_head = n.compute == ComputeKind::linear && n.head;
    const bool tp_block = r_.request.tp > 1 && (n.attention || n.mlp || lm_head);
    if (tp_block) close();
    const std::size_t block_start = s_.segments.size();
    if (unit >= 0) s_.units[unit].entry_seg = static_cast<int>(s_.segments.size());
    if (!n.params.empty() && n.compute == ComputeKind::none) {
      pending_grad_.push_back(owner_[id]);
      pending_nodes_.push_back(id);
    }
    if (n.compute != ComputeKind::none) leaf(id);
    const bool ep_moe = n.mlp && r_.model.is_moe() && r_.request.ep > 1;
    for (int c : n.exec_children) {
      if (ep_moe && s_.tree.nodes[c].experts_container) {
        close();
        if (!s_.segments.empty()) s_.segments.back().after = MoeMarker::dispatch;
        walk(c);
        close();
        s_.segments.back().after = MoeMarker::combine;
      } else {
        walk(c);
      }
    }
    if (boundary || tp_block) close();
    if (tp_block && s_.segments.size() > block_start) {
      s_.segments[block_start].tp_in = true;
      s_.segments.back().tp_out = !lm_head;  // lm_head feeds the vocab-parallel loss directly
    }
    if (unit >= 0) s_.units[unit].exit_seg = static_cast<int>(s_.segments.size()) - 1;
  }

  void finish() {
    close();
    const int last = static_cast<int>(s_.segments.size()) - 1;
    for (int u : pending_grad_) note_grad(u, std::max(last, 0));
    for (int node : pending_nodes_) s_.node_grad_seg[node] = std::max(last, 0);
    for (Unit& u : s_.units)
      if (u.grad_seg < 0) u.grad_seg = std::max(std::min(u.entry_seg, last), 0);
  }

 private:
  void note_grad(int unit, int seg) {
    int& g = s_.units[unit].grad_seg;
    g = g < 0 ? seg : std::min(g, seg);
  }

  std::uint64_t rows_of_expert(const ModuleNode& n, int e) const {
    return traffic_.at(n.layer).expert_rows.at(e);
  }

  ExpertLoop expert_loop() const {
    const ModelConfig& m = r_.model;
    return {r_.tokens, static_cast<std::uint64_t>(m.hidden),
            static_cast<std::uint64_t>(m.expert_intermediate / r_.request.tp),
            static_cast<std::uint64_t>(m.experts), static_cast<std::uint64_t>(m.top_k),
            dtype_size_bytes(r_.param_dtype), r_.stacked_experts};
  }

  // HF's stacked-experts loop over the experts that got rows: each expert's rows gathered, its
  // two GEMMs, weighted rows added back; backward in reverse, each expert's weight gradient
  // built as a full-size stacked tensor.
  WorkSet stacked_experts(const ModuleNode& n) const {
    if (r_.grouped_experts) return grouped_experts(n);
    const ModelConfig& m = r_.model;
    const ExpertLoop loop = expert_loop();
    const std::int64_t inter = m.expert_intermediate / r_.request.tp;
    WorkSet all = expert_loop_start_kernels(n.path, loop);
    std::vector<WorkSet> per_expert;
    for (int e : n.experts_here) {
      const std::uint64_t rows = rows_of_expert(n, e);
      if (rows == 0) continue;  // the loop visits the experts that were hit
      const std::string label = n.path + "[" + std::to_string(e) + "]";
      const auto r = static_cast<std::int64_t>(rows);
      WorkSet gate_up, down;
      add_linear_gemms(r, m.hidden, 2 * inter, label + ".gate_up_proj", gate_up);
      add_linear_gemms(r, inter, m.hidden, label + ".down_proj", down);
      const WorkSet dispatch = expert_dispatch_kernels(label, loop, rows);
      const WorkSet act = swiglu_kernels(label, rows, static_cast<std::uint64_t>(inter), true,
                                         loop.bytes);
      const WorkSet combine = expert_combine_kernels(label, loop, rows);
      const bool first_in_backward = per_expert.size() + 1 == n.experts_here.size() ||
                                     std::none_of(n.experts_here.begin(), n.experts_here.end(),
                                                  [&](int later) {
                                                    return later > e && rows_of_expert(n, later) > 0;
                                                  });
      WorkSet w;
      for (const WorkSet* part : std::initializer_list<const WorkSet*>{&dispatch, &gate_up, &act, &down, &combine}) w.fwd.append(part->fwd);
      // The rank's parameter stacks its own experts (all of them without expert parallelism).
      const auto stack = static_cast<std::uint64_t>(n.params.front().shape.front());
      const WorkSet down_grad = stacked_slice_grad_kernels(
          label + ".down_proj", loop, stack, loop.hidden, loop.intermediate, first_in_backward);
      const WorkSet gate_up_grad = stacked_slice_grad_kernels(label + ".gate_up_proj", loop, stack,
                                                              2 * loop.intermediate, loop.hidden,
                                                              first_in_backward);
      for (const WorkSet* part : std::initializer_list<const WorkSet*>{
               &combine, &down, &down_grad, &act, &gate_up, &gate_up_grad, &dispatch})
        w.bwd.append(part->bwd);
      per_expert.push_back(std::move(w));
    }
    for (const WorkSet& w : per_expert) all.fwd.append(w.fwd);
    Work bwd;
    for (auto it = per_expert.rbegin(); it != per_expert.rend(); ++it) bwd.append(it->bwd);
    bwd.append(all.bwd);
    all.bwd = std::move(bwd);
    return all;
  }

  // torch._grouped_mm: the rank's routed rows sorted by expert, gate_up and down each one
  // grouped GEMM over all the experts here, each group as many rows as routing gave its expert
  // (skew included: a hot expert's group is longer); the weight gradients group K by expert.
  WorkSet grouped_experts(const ModuleNode& n) const {
    const ExpertLoop loop = expert_loop();
    std::vector<std::int64_t> group_rows;
    for (int e : n.experts_here) group_rows.push_back(static_cast<std::int64_t>(rows_of_expert(n, e)));
    const auto rows = static_cast<std::uint64_t>(
        std::accumulate(group_rows.begin(), group_rows.end(), std::int64_t{0}));
    if (rows == 0 || n.experts_here.empty()) return {};
    const auto h = static_cast<std::int64_t>(loop.hidden);
    const auto inter = static_cast<std::int64_t>(loop.intermediate);
    auto grouped = [&](std::int64_t in, std::int64_t out, const std::string& what, WorkSet& w) {
      const std::string label = n.path + "." + what + " (grouped_mm)";
      w.fwd.add_gemm(grouped_gemm(group_rows, 0, out, in, false, label + " fwd"));
      w.bwd.add_gemm(grouped_gemm(group_rows, 0, in, out, false, label + " dgrad"));
      w.bwd.add_gemm(grouped_gemm(group_rows, out, in, 0, true, label + " wgrad"));
    };
    const WorkSet permute = grouped_permute_kernels(n.path, loop, rows, n.experts_here.size());
    const WorkSet act = swiglu_kernels(n.path, rows, loop.intermediate, true, loop.bytes);
    const WorkSet unpermute = grouped_unpermute_kernels(n.path, loop, rows, n.experts_here.size());
    WorkSet gate_up, down, all;
    grouped(h, 2 * inter, "gate_up_proj", gate_up);
    grouped(inter, h, "down_proj", down);
    for (const WorkSet* part : std::initializer_list<const WorkSet*>{&permute, &gate_up, &act, &down, &unpermute})
      all.fwd.append(part->fwd);
    for (const WorkSet* part : std::initializer_list<const WorkSet*>{&unpermute, &down, &act, &gate_up, &permute})
      all.bwd.append(part->bwd);
    return all;
  }

  WorkSet work_of(const ModuleNode& n) const {
    const ModelConfig& m = r_.model;
    const WorkloadRequest& q = r_.request;
    const std::uint64_t tokens = r_.tokens, a = dtype_size_bytes(r_.param_dtype);
    // Sequence parallelism splits the tokens of norms and residual adds over the TP group.
    const std::uint64_t seq_rows = q.tp > 1 && q.sequence_parallel ? tokens / q.tp : tokens;
    const auto in = static_cast<std::uint64_t>(n.in_features);
    const auto out = static_cast<std::uint64_t>(n.out_features);
    const auto rotary_dim = static_cast<std::uint64_t>(m.rotary_dim());
    // Norms inside a block (q_norm, MLA's latent norms) see every token, split or not.
    const std::uint64_t norm_rows =
        n.rows_per_token > 0 ? tokens * static_cast<std::uint64_t>(n.rows_per_token) : seq_rows;
    WorkSet g;
    switch (n.compute) {
      case ComputeKind::linear: {
        const std::uint64_t rows = n.expert < 0 ? tokens : rows_of_expert(n, n.expert);
        if (n.bias && rows > 0) g = bias_grad_kernels(n.path, rows, out, a);
        add_linear_gemms(static_cast<std::int64_t>(rows), n.in_features, n.out_features, n.path, g);
        break;
      }
      case ComputeKind::attention_core:
        add_attention_gemms(q.micro_batch, q.seq, m.heads / q.tp, n.in_features, n.out_features,
                            n.path, g);
        break;
      case ComputeKind::stacked_experts: g = stacked_experts(n); break;
      case ComputeKind::rms_norm: g = rms_norm_kernels(n.path, norm_rows, in, a); break;
      case ComputeKind::layer_norm: g = layer_norm_kernels(n.path, norm_rows, in, a); break;
      case ComputeKind::layer_norm_1p: g = layer_norm_1p_kernels(n.path, norm_rows, in, a); break;
      case ComputeKind::gelu: g = gelu_kernels(n.path, tokens, in, a); break;
      case ComputeKind::squared_relu: g = squared_relu_kernels(n.path, tokens, in, a); break;
      case ComputeKind::embedding:
        g = embedding_kernels(n.path, tokens, out, in, m.tied_embeddings, a);
        break;
      case ComputeKind::rotary_tables: g = rotary_table_kernels(n.path, tokens, rotary_dim, a); break;
      case ComputeKind::rotary: {
        // Partial rotary: each head's dims beyond rotary_dim pass through (not MLA's rope part).
        const std::uint64_t heads = m.is_mla() ? 0 : static_cast<std::uint64_t>(m.heads / q.tp);
        const auto kv_heads = static_cast<std::uint64_t>(m.kv_heads / q.tp);
        const std::uint64_t pass = static_cast<std::uint64_t>(m.head_dim) - rotary_dim;
        g = rotary_kernels(n.path, tokens, in, out, rotary_dim, a, heads * pass,
                           heads > 0 ? kv_heads * pass : 0);
        break;
      }
      case ComputeKind::input_grads:
        g = input_grad_sum_kernels(n.path, seq_rows, in, n.branches, a);
        break;
      case ComputeKind::swiglu: {
        const std::uint64_t rows = n.expert < 0 ? tokens : rows_of_expert(n, n.expert);
        if (rows > 0) g = swiglu_kernels(n.path, rows, in, false, a);
        break;
      }
      case ComputeKind::residual: g = residual_kernels(n.path, seq_rows, in, a); break;
      case ComputeKind::loss:
        g = q.fused_loss() ? fused_cross_entropy_kernels(n.path, tokens, out, a)
                              : cross_entropy_kernels(n.path, tokens, out, a);
        break;
      case ComputeKind::router:
        g = router_kernels(n.path, tokens, static_cast<std::uint64_t>(m.experts),
                           static_cast<std::uint64_t>(m.top_k), a);
        break;
      case ComputeKind::expert_loop: g = expert_loop_start_kernels(n.path, expert_loop()); break;
      case ComputeKind::expert_dispatch:
      case ComputeKind::expert_combine: {
        const std::uint64_t rows = rows_of_expert(n, n.expert);
        if (rows == 0) break;  // HF's loop still asks where the expert's rows are: one sync
        g = n.compute == ComputeKind::expert_dispatch
                ? expert_dispatch_kernels(n.path, expert_loop(), rows)
                : expert_combine_kernels(n.path, expert_loop(), rows);
        break;
      }
      case ComputeKind::none: break;
    }
    return g;
  }

  void leaf(int id) {
    const ModuleNode& n = s_.tree.nodes[id];
    const WorkSet g = work_of(n);
    if (open_.empty()) {
      open_seg_.label = n.path;
      open_seg_.unit = owner_[id];
      open_seg_.layer = n.layer;
      open_seg_.work = {};
    } else {
      open_seg_.label = common_path(open_seg_.label, n.path);
    }
    open_.push_back(id);
    const int seg = static_cast<int>(s_.segments.size());
    for (int u : pending_grad_) note_grad(u, seg);
    pending_grad_.clear();
    for (int node : pending_nodes_) s_.node_grad_seg[node] = seg;
    pending_nodes_.clear();
    if (!n.params.empty()) s_.node_grad_seg[id] = seg;
    if (!n.params.empty()) note_grad(owner_[id], seg);
    Unit& u = s_.units[owner_[id]];
    u.fwd_flops += gemm_flops(g.fwd.gemms);
    u.bwd_flops += gemm_flops(g.bwd.gemms);
    if (n.layer >= 0 && r_.request.activation_checkpointing)
      u.recompute_flops += gemm_flops(g.fwd.gemms);
    open_seg_.work.fwd.append(g.fwd);
    // Backward runs the leaves in reverse: prepend.
    open_seg_.work.bwd.prepend(g.bwd);
  }

  void close() {
    if (open_.empty()) return;
    // Leaves with no common module (norm, lm_head, loss) are named by their unit.
    if (open_seg_.label.empty()) open_seg_.label = s_.units[open_seg_.unit].name;
    s_.segments.push_back(open_seg_);
    open_.clear();
  }

  const ResolvedRequest& r_;
  const std::vector<MoeLayerTraffic>& traffic_;
  StepStructure& s_;
  const std::vector<int>& unit_of_node_;
  const std::vector<int>& owner_;
  std::vector<int> open_;
  Segment open_seg_;
  std::vector<int> pending_grad_;   // units with norm/embedding weights waiting for the next leaf
  std::vector<int> pending_nodes_;  // the nodes holding those weights
};

// Parameters of a unit in named_parameters() order, without those of units nested in it.
void collect_params(const ModuleTree& t, int id, int unit, const std::vector<int>& unit_of_node,
                    std::vector<const ParamTensor*>& out) {
  for (const ParamTensor& p : t.nodes[id].params) out.push_back(&p);
  for (int c : t.nodes[id].children)
    if (unit_of_node[c] < 0 || unit_of_node[c] == unit)
      collect_params(t, c, unit, unit_of_node, out);
}

void set_owner(const ModuleTree& t, int id, int current, const std::vector<int>& unit_of_node,
               std::vector<int>& owner) {
  if (unit_of_node[id] >= 0) current = unit_of_node[id];
  owner[id] = current;
  for (int c : t.nodes[id].children) set_owner(t, c, current, unit_of_node, owner);
}

}  // namespace

StepStructure build_step_structure(const ResolvedRequest& r,
                                   const std::vector<MoeLayerTraffic>& traffic) {
  StepStructure s;
  const WorkloadRequest& q = r.request;
  TreeOptions opt;
  opt.layers = r.layers;
  opt.stacked_experts = r.stacked_experts;
  opt.ep = q.ep;
  opt.ep_index = q.rank / q.tp % q.ep;
  opt.tp = q.tp;
  for (const MoeLayerTraffic& t : traffic) opt.replicated.push_back(t.replicated);
  s.tree = stage_tree(build_module_tree(r.model, opt), q.pipeline.stage);
  const ModuleTree& t = s.tree;
  s.node_grad_seg.assign(t.nodes.size(), -1);

  std::vector<int> prewrapped;
  if (q.ep > 1)
    for (int id = 0; id < static_cast<int>(t.nodes.size()); ++id)
      if (t.nodes[id].experts_container) prewrapped.push_back(id);
  std::vector<int> nodes = choose_units(t, r.wrap, prewrapped);
  nodes.insert(nodes.begin(), 0);

  std::vector<int> unit_of_node(t.nodes.size(), -1);
  for (std::size_t u = 0; u < nodes.size(); ++u) unit_of_node[nodes[u]] = static_cast<int>(u);
  std::vector<int> owner(t.nodes.size(), 0);
  set_owner(t, 0, 0, unit_of_node, owner);

  for (std::size_t u = 0; u < nodes.size(); ++u) {
    const ModuleNode& n = t.nodes[nodes[u]];
    Unit unit;
    unit.node = nodes[u];
    unit.root = u == 0;
    unit.name = unit.root ? "root" : n.path;
    unit.layer = n.layer;
    const bool dp = std::find(prewrapped.begin(), prewrapped.end(), nodes[u]) != prewrapped.end();
    unit.group = dp ? GroupKind::data_parallel : dense_shard_group(r);
    unit.group_size = dp ? q.world / (q.ep * q.tp) : r.shard_group;
    std::vector<const ParamTensor*> params;
    collect_params(t, nodes[u], static_cast<int>(u), unit_of_node, params);
    for (const ParamTensor* p : params)
      unit.params = checked_add(unit.params, p->numel(), "unit parameters");
    unit.param_tensors = params.size();
    unit.gathered_numel =
        r.plan == PlanKind::fsdp1
            ? fsdp1_flat_numel(params, unit.group_size, q.use_orig_params, r.param_dtype)
            : fsdp2_unit_numel(params, unit.group_size);
    s.units.push_back(unit);
  }

  Walker w(r, traffic, s, unit_of_node, owner);
  w.walk(0);
  w.finish();

  // Root first, then the others in forward entry order (ties: outer unit first = tree order).
  std::stable_sort(s.units.begin() + 1, s.units.end(),
                   [](const Unit& a, const Unit& b) { return a.entry_seg < b.entry_seg; });
  // Unit indices moved with the sort: map segments back through node ids.
  std::map<int, int> index_of_node;
  for (std::size_t u = 0; u < s.units.size(); ++u)
    index_of_node[s.units[u].node] = static_cast<int>(u);
  for (Segment& seg : s.segments) seg.unit = index_of_node[nodes[seg.unit]];
  return s;
}

}  // namespace collreplay
