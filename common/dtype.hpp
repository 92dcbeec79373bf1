// Element types of collectives and GEMMs, shared by workloads, collectives and bench.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace collreplay {

// fp8 (e4m3) only moves data (all-to-all dispatch); nothing reduces or multiplies it.
enum class DType { bf16, f16, f32, fp8 };

constexpr std::size_t dtype_size_bytes(DType t) {
  return t == DType::f32 ? 4 : t == DType::fp8 ? 1 : 2;
}

std::string_view dtype_name(DType t);

// Accepts bf16|bfloat16, f16|fp16|half|float16, f32|fp32|float|float32, fp8|e4m3; throws UsageError
// otherwise.
DType parse_dtype(std::string_view text);

}  // namespace collreplay
