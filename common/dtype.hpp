// Element types of collectives and GEMMs, shared by workloads, collectives and bench.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace collreplay {

enum class DType { bf16, f16, f32 };

constexpr std::size_t dtype_size_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

std::string_view dtype_name(DType t);

// Accepts bf16|bfloat16, f16|fp16|half|float16, f32|fp32|float|float32; throws UsageError otherwise.
DType parse_dtype(std::string_view text);

}  // namespace collreplay
