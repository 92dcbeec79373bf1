// Every op's spec, by kind or by name. Names are the ops' own ("all_gather", "all_to_allv"); the
// executables' short forms without underscores ("alltoall", "allgather") are accepted too.
#pragma once
#include <string_view>
#include <vector>

#include "collectives/ops/op_spec.hpp"

namespace collreplay {

const OpSpec& op_spec(CollectiveKind kind);
// UsageError listing the known names when `name` is not one of them.
const OpSpec& find_op(std::string_view name);
std::vector<const OpSpec*> all_ops();

}  // namespace collreplay
