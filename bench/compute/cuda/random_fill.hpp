// Random GEMM operands on the device. Not zeros and not the small integers of fill_pattern.hpp:
// tensor cores draw less power on sparse bit patterns, so such operands would let the GPU clock
// higher than real training data does. Stream passed as void* (cudaStream_t). CUDA builds only.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/dtype.hpp"

namespace collreplay {

// buf[i] uniform in [-1, 1), from a hash of (seed, i).
void device_fill_random(void* buf, std::size_t count, DType t, std::uint64_t seed, void* stream);

}  // namespace collreplay
