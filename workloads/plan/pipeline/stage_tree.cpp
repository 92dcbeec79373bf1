#include "workloads/plan/pipeline/stage_tree.hpp"

#include <algorithm>

namespace collreplay {
namespace {

// Whether node `n` (and its subtree) belongs to another stage.
bool elsewhere(const ModuleNode& n, const StageSpan& span) {
  if (n.decoder_layer)
    return n.layer < span.first_layer || n.layer >= span.first_layer + span.layers;
  if (n.layer >= 0) return false;  // inside a kept layer
  if (n.compute == ComputeKind::embedding) return !span.embedding;
  const bool final_norm = n.compute == ComputeKind::rms_norm || n.compute == ComputeKind::layer_norm;
  if (n.head || n.compute == ComputeKind::loss || final_norm) return !span.head;
  return false;
}

}  // namespace

ModuleTree stage_tree(const ModuleTree& tree, const StageSpan& span) {
  if (!span.restricted()) return tree;
  const int count = static_cast<int>(tree.nodes.size());
  std::vector<int> new_id(count, -1);
  ModuleTree out;
  bool embedding_kept = false;
  // Pre-order: a parent comes before its children, so a dropped parent drops its subtree.
  for (int id = 0; id < count; ++id) {
    const ModuleNode& n = tree.nodes[id];
    const bool parent_kept = n.parent < 0 || new_id[n.parent] >= 0;
    if (!parent_kept || elsewhere(n, span)) continue;
    new_id[id] = static_cast<int>(out.nodes.size());
    embedding_kept = embedding_kept || n.compute == ComputeKind::embedding;
    out.nodes.push_back(n);
  }
  for (ModuleNode& n : out.nodes) {
    if (n.parent >= 0) n.parent = new_id[n.parent];
    for (std::vector<int>* list : {&n.children, &n.exec_children}) {
      std::vector<int> kept;
      for (int c : *list)
        if (new_id[c] >= 0) kept.push_back(new_id[c]);
      *list = std::move(kept);
    }
  }
  for (ModuleNode& n : out.nodes)
    if (n.head && n.compute == ComputeKind::linear && n.params.empty() && !embedding_kept)
      n.params.push_back(ParamTensor{n.path + ".weight", {n.out_features, n.in_features}});
  return out;
}

}  // namespace collreplay
