// Tensor-parallel collectives of one phase (Megatron-LM's f/g operators; torchtitan's
// SequenceParallel / ColwiseParallel / RowwiseParallel plan), over the tp group, on
// micro_batch x seq x hidden activations in the param dtype:
//   sequence parallel: all-gather before a TP block (attention, MLP, lm_head), reduce-scatter
//     after attention and MLP; backward mirrors them (all-gather of the output gradient before the
//     block's backward, reduce-scatter of the input gradient after it). The vocab-parallel
//     embedding's output is reduce-scattered in forward and its gradient all-gathered at the end
//     of backward.
//   --no-sequence-parallel: all-reduce after attention, MLP and the embedding in forward; in
//     backward an all-reduce after each block's backward (the input gradient), lm_head included.
// They are on the critical path (hides -1); with --async-tp each overlaps the compute item next
// to it (the GEMM it is fused with) and is needed one item later.
#pragma once
#include <string>
#include <vector>

#include "workloads/plan/parallel/phase_ops.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step_structure.hpp"

namespace collreplay {

// `item_seg[i]` is the segment compute item i of `ops` runs (forward, recompute or backward,
// from ops.compute[i].phase). `forward_phase`: the phase that starts with the embedding.
void add_tensor_parallel_items(const ResolvedRequest& r, const StepStructure& s,
                               const std::vector<int>& item_seg, bool forward_phase,
                               const std::string& prefix, PhaseOps& ops);

}  // namespace collreplay
