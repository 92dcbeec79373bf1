// The shape of one micro-batch before it becomes ops: the FSDP units (what each all-gathers) and
// the forward compute segments in execution order (maximal runs of compute leaves, GEMMs and the
// kernels between them, that no unit boundary, decoder-layer boundary or MoE all-to-all splits),
// with where each unit is entered, left and has its gradients complete.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/model/gemm_slices.hpp"
#include "workloads/model/module_tree.hpp"
#include "workloads/plan/moe_routing.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct Unit {
  std::string name;  // "root" or the module path ("layers.3", "layers.3.mlp", "embed_tokens")
  int node = 0;
  int layer = -1;
  bool root = false;
  GroupKind group = GroupKind::world;  // expert-parallel experts: data_parallel
  int group_size = 1;
  std::uint64_t params = 0;          // unpadded
  std::uint64_t param_tensors = 0;   // parameter tensors (FSDP2 copies and the optimizer loop over them)
  std::uint64_t gathered_numel = 0;  // all-gather output numel (padded per the plan)
  double fwd_flops = 0, bwd_flops = 0, recompute_flops = 0;  // per micro-batch
  // Segment indices: first segment after the unit is entered (== segments.size() when none
  // follows), last segment inside it (entry - 1 when none), and the segment whose backward
  // completes the unit's gradients.
  int entry_seg = -1, exit_seg = -1, grad_seg = -1;
};

enum class MoeMarker { none, dispatch, combine };

struct Segment {
  std::string label;  // longest common module path of its leaves, e.g. "layers.3"
  int unit = 0;       // unit holding the parameters of its first leaf
  int layer = -1;
  WorkSet work;
  MoeMarker after = MoeMarker::none;  // an all-to-all follows this segment in forward
  // Tensor parallelism: the first segment of a TP block (attention, MLP, lm_head) takes the
  // block's input collective, the last its output collective
  // (workloads/plan/parallel/tensor_parallel.hpp).
  bool tp_in = false, tp_out = false;
};

struct StepStructure {
  ModuleTree tree;
  std::vector<Unit> units;        // units[0] is the root; the rest in forward entry order
  std::vector<Segment> segments;  // forward order
  // Per tree node holding parameters: the segment whose backward completes their gradients
  // (-1 for nodes without parameters). DDP buckets are ready from these.
  std::vector<int> node_grad_seg;
};

StepStructure build_step_structure(const ResolvedRequest& request,
                                   const std::vector<MoeLayerTraffic>& traffic);

}  // namespace collreplay
