// Host-side element access for the three collective dtypes. bf16 and fp16 are stored as raw
// 16-bit patterns; conversions round to nearest even, so the small integers of the fill pattern
// (and their sums over up to 128 ranks) convert exactly in both directions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/dtype.hpp"

namespace collreplay {

inline float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

inline std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

float fp16_to_float(std::uint16_t bits);
std::uint16_t float_to_fp16(float value);
// OCP fp8 e4m3 (bias 7, no infinities, 0x7f NaN), round to nearest even, saturating at 448.
float fp8_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8(float value);

inline float load_value(DType t, const void* base, std::size_t index) {
  switch (t) {
    case DType::f32: return static_cast<const float*>(base)[index];
    case DType::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    case DType::f16: return fp16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    case DType::fp8: return fp8_to_float(static_cast<const std::uint8_t*>(base)[index]);
  }
  return 0;
}

inline void store_value(DType t, void* base, std::size_t index, float value) {
  switch (t) {
    case DType::f32: static_cast<float*>(base)[index] = value; return;
    case DType::bf16: static_cast<std::uint16_t*>(base)[index] = float_to_bf16(value); return;
    case DType::f16: static_cast<std::uint16_t*>(base)[index] = float_to_fp16(value); return;
    case DType::fp8: static_cast<std::uint8_t*>(base)[index] = float_to_fp8(value); return;
  }
}

}  // namespace collreplay
