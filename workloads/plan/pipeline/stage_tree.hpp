// One pipeline stage's module tree, as a stage module is built from the whole model (torchtitan's
// pipeline_module_split, Megatron's model chunks): the decoder layers of its span keep their
// indices (layers.20, ...), the embedding stays on the first stage, the final norm, the output
// head and the loss on the last. With tied embeddings a last stage without the embedding holds the
// head's weight itself (Megatron's copy of the word embeddings on the last stage; the all-reduce of
// the two copies' gradients is not modelled).
#pragma once
#include "workloads/model/module_tree.hpp"
#include "workloads/plan/pipeline/pipeline_request.hpp"

namespace collreplay {

// `tree` built with at least span.first_layer + span.layers decoder layers; the nodes outside the
// span removed (node ids stay in pre-order). An unrestricted span returns the tree unchanged.
ModuleTree stage_tree(const ModuleTree& tree, const StageSpan& span);

}  // namespace collreplay
