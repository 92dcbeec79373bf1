#include "common/dtype.hpp"

#include "common/errors.hpp"

namespace collreplay {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::f16: return "fp16";
    case DType::f32: return "fp32";
    case DType::fp8: return "fp8";
    case DType::fp8_e5m2: return "fp8_e5m2";
    case DType::f64: return "fp64";
    case DType::i8: return "int8";
    case DType::u8: return "uint8";
    case DType::i32: return "int32";
    case DType::u32: return "uint32";
    case DType::i64: return "int64";
    case DType::u64: return "uint64";
  }
  return "?";
}

DType parse_dtype(std::string_view text) {
  if (text == "bf16" || text == "bfloat16") return DType::bf16;
  if (text == "f16" || text == "fp16" || text == "half" || text == "float16") return DType::f16;
  if (text == "f32" || text == "fp32" || text == "float" || text == "float32") return DType::f32;
  if (text == "fp8" || text == "e4m3") return DType::fp8;
  throw UsageError("unknown dtype '" + std::string(text) + "' (expected bf16, fp16, fp32 or fp8)");
}

}  // namespace collreplay
