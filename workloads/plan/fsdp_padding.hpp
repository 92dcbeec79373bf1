// How many elements a unit all-gathers, per PyTorch's sharding rules. Both results are the
// all-gather output numel (= reduce-scatter input numel) of one unit over a group of `group_size`.
#pragma once
#include <cstdint>
#include <vector>

#include "common/dtype.hpp"
#include "workloads/model/module_tree.hpp"

namespace collreplay {

// FSDP1 FlatParameter (torch/distributed/fsdp/_flat_param.py): parameters concatenated in
// named_parameters() order; with use_orig_params each one starts on a 16-byte boundary (padding
// of 16/dtype_size elements, in the param dtype); the total is padded up to a multiple of
// group_size (each rank holds one equal chunk).
std::uint64_t fsdp1_flat_numel(const std::vector<const ParamTensor*>& params, int group_size,
                               bool use_orig_params, DType param_dtype);

// FSDP2 (torch/distributed/fsdp/_fully_shard/_fsdp_param.py): a parameter's dim 0 is padded up
// to a multiple of group_size (every rank's chunk has ceil(dim0 / group_size) rows).
std::uint64_t fsdp2_padded_numel(const ParamTensor& param, int group_size);

// FSDP2 unit: the all-gather input is every padded shard of the unit back to back, so the output
// is the sum of the padded parameters.
std::uint64_t fsdp2_unit_numel(const std::vector<const ParamTensor*>& params, int group_size);

}  // namespace collreplay
