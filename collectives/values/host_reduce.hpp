// The host backend's reductions for every collective dtype and NCCL reduction (reduce_op.hpp),
// as the GPU computes them: integers wrap (two's complement), bf16, fp16 and fp8 are combined in
// float and rounded to the type, min and max compare values. avg is a sum between two steps its
// caller takes, as NCCL does: on floating-point types each input is first multiplied by 1/ranks
// rounded to the type (premultiply_values), on integers the sum is divided by ranks, truncating
// toward zero (postdivide_values).
#pragma once
#include <cstddef>
#include <span>

#include "collectives/reduce_op.hpp"
#include "common/dtype.hpp"

namespace collreplay {

// out[i] = base[i] op ins[0][i] op ins[1][i] ... for `elements` elements of `t` (avg: a sum);
// `base` may be `out`.
void reduce_values(DType t, ReduceOp op, void* out, const void* base,
                   std::span<const void* const> ins, std::size_t elements);

// True when avg on `t` multiplies the inputs before summing (floating point), false when it
// divides the sum (integers).
constexpr bool averages_before_summing(DType t) { return !dtype_is_integer(t); }

// The factor avg multiplies every input by on `t`: 1/ranks rounded to the type as NCCL rounds it
// (in float, then to the type; in double for fp64).
double average_factor(DType t, int ranks);

// data[i] = data[i] x average_factor(t, ranks), rounded to `t` (floating-point types).
void premultiply_values(DType t, void* data, std::size_t elements, int ranks);
// data[i] = data[i] / ranks, truncating toward zero (integer types).
void postdivide_values(DType t, void* data, std::size_t elements, int ranks);

}  // namespace collreplay
