// Element types of collectives and GEMMs, shared by workloads, collectives and bench.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace collreplay {

// bf16, f16 and f32 are what training moves and multiplies. fp8 (OCP e4m3) is the MoE dispatch's
// transfer type; it and the rest (nccl-tests' other types: fp8 e5m2, fp64 and the integers) are
// collective element types only: no GEMM multiplies them.
enum class DType { bf16, f16, f32, fp8, fp8_e5m2, f64, i8, u8, i32, u32, i64, u64 };

constexpr std::size_t dtype_size_bytes(DType t) {
  switch (t) {
    case DType::fp8:
    case DType::fp8_e5m2:
    case DType::i8:
    case DType::u8: return 1;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::f32:
    case DType::i32:
    case DType::u32: return 4;
    case DType::f64:
    case DType::i64:
    case DType::u64: return 8;
  }
  return 1;
}

constexpr bool dtype_is_integer(DType t) {
  return t == DType::i8 || t == DType::u8 || t == DType::i32 || t == DType::u32 ||
         t == DType::i64 || t == DType::u64;
}
constexpr bool dtype_is_unsigned(DType t) {
  return t == DType::u8 || t == DType::u32 || t == DType::u64;
}

// "bf16", "fp16", "fp32", "fp8" (e4m3), "fp8_e5m2", "fp64", "int8" ... "uint64": the records'
// spelling.
std::string_view dtype_name(DType t);

// Accepts bf16|bfloat16, f16|fp16|half|float16, f32|fp32|float|float32, fp8|e4m3; throws UsageError
// otherwise.
DType parse_dtype(std::string_view text);

}  // namespace collreplay
