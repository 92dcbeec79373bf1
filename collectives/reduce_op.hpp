// The reduction a reducing collective (all_reduce, reduce_scatter) applies, as NCCL names it:
// ncclSum, ncclProd, ncclMin, ncclMax, ncclAvg. avg is NCCL's: on floating-point types every
// input is first multiplied by 1/ranks rounded to the type (PreMulSum), on integer types the sum
// is divided by ranks, truncating (SumPostDiv).
#pragma once
#include <optional>
#include <string_view>

namespace collreplay {

enum class ReduceOp { sum, prod, min, max, avg };

// "sum", "prod", "min", "max", "avg": nccl-tests' -o names.
std::string_view reduce_op_name(ReduceOp op);
std::optional<ReduceOp> reduce_op_from_name(std::string_view name);

}  // namespace collreplay
