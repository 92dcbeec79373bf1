// Which modules become FSDP units. The root (the whole CausalLM) is always a unit and holds what
// no other unit claimed.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "workloads/model/module_tree.hpp"

namespace collreplay {

struct WrapPolicy {
  enum class Kind { block, submodule, size } kind = Kind::block;
  std::uint64_t min_num_params = 100000000;  // size: size_based_auto_wrap_policy's default 1e8
};

// "block", "submodule", "size" or "size:N" (N an integer or 1e8-style). Throws UsageError.
WrapPolicy parse_wrap(std::string_view text);

// Nodes wrapped as units (root excluded), in tree pre-order. `prewrapped` nodes (expert-parallel
// experts, sharded over their own group) are units already: the size policy skips their
// parameters, as FSDP's _recursive_wrap skips parameters that are already flattened.
//   block:     every decoder layer (transformer_auto_wrap_policy).
//   submodule: self_attn, then mlp, then the decoder layer (holding its two norms), as
//              fully_shard applied in that order gives.
//   size:N:    torch.distributed.fsdp.wrap._recursive_wrap with size_based_auto_wrap_policy:
//              recurse into a module whose not-yet-wrapped parameters reach N; after its
//              children, wrap it when the remainder left to it still reaches N, unless it is an
//              nn.ModuleList; the root only wraps children (FSDP wraps the root itself).
std::vector<int> choose_units(const ModuleTree& tree, const WrapPolicy& policy,
                              const std::vector<int>& prewrapped);

}  // namespace collreplay
