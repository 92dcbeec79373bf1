// What one decoder layer keeps per token for its backward in eager PyTorch, by family: the
// tensors autograd saves between forward and backward. For advise's memory model (bench/advise
// counts a Llama-shaped layer; this adds Qwen3's q/k norms, multi-head latent attention, shared
// and fine-grained experts, dense layers among MoE ones, GPT-NeoX's non-gated MLP).
#pragma once
#include <cstdint>

#include "workloads/model/model.hpp"

namespace collreplay {

// Elements per token; `split` ones are divided by the tensor-parallel degree, `whole` ones are
// not (the norms' outputs, which the sequence-parallel all-gather makes whole; the routed rows).
struct LayerActivations {
  std::uint64_t whole = 0, split = 0;
};

// sequence_split: sequence parallelism splits the norms' inputs (the residual stream) too;
// outputs_split: the norms' outputs are saved as sequence shards as well (Megatron's linears
// gather them again in backward: --tp-style megatron).
LayerActivations layer_activation_elements(const ModelConfig& model, std::int64_t layer,
                                           bool sequence_split, bool outputs_split);

}  // namespace collreplay
