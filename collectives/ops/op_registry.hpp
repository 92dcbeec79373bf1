// Name -> OpSpec. Names are the ops' own ("all_gather", "all_to_allv"); the executables' short
// forms ("alltoall") are accepted as aliases.
#pragma once
#include <string_view>
#include <vector>

#include "collectives/ops/op_spec.hpp"

namespace collreplay {

// UsageError listing the known names when `name` is not one of them.
const OpSpec& find_op(std::string_view name);
std::vector<const OpSpec*> all_ops();

}  // namespace collreplay
