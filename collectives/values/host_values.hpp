// Host-side element access for the collective dtypes. bf16 and fp16 are stored as raw
// 16-bit patterns; conversions round to nearest even, so the small integers of the fill pattern
// (and their sums over up to 128 ranks) convert exactly in both directions. The conversions are
// branch-free (integer and float arithmetic plus selects) so that loops over them, such as
// add_values' host reductions, vectorise at -O2.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

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
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  const auto rounded = static_cast<std::uint16_t>((bits + rounding) >> 16);
  const auto quiet_nan = static_cast<std::uint16_t>((bits >> 16) | 0x40);  // NaN stays NaN
  return (bits & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded;
}

// Exponent and mantissa shifted into float position and scaled by 2^112 (the bias difference):
// exact for normals and subnormals alike; infinities and NaNs get the float's all-ones exponent.
inline float fp16_to_float(std::uint16_t half) {
  const std::uint32_t magnitude = static_cast<std::uint32_t>(half & 0x7fffu) << 13;
  float scaled;
  std::memcpy(&scaled, &magnitude, sizeof scaled);
  scaled *= 0x1p112f;
  std::uint32_t bits;
  std::memcpy(&bits, &scaled, sizeof bits);
  bits |= (half & 0x7fffu) >= 0x7c00u ? 0x7f800000u : 0u;
  bits |= static_cast<std::uint32_t>(half & 0x8000u) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Round to nearest even in all three ranges (overflow, subnormal, normal), computed together and
// selected, so that the loop has no branches.
inline std::uint16_t float_to_fp16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  const std::uint32_t overflow = 0x7c00u | ((magnitude > 0x7f800000u) << 9);  // infinity, NaN
  // Subnormal results: adding 0.5 (2^-1) aligns the result's units (2^-24) with the float's last
  // mantissa bit, so the FPU's own round-to-nearest-even does the rounding.
  float magnitude_value;
  std::memcpy(&magnitude_value, &magnitude, sizeof magnitude_value);
  const float aligned = magnitude_value + 0.5f;
  std::uint32_t aligned_bits;
  std::memcpy(&aligned_bits, &aligned, sizeof aligned_bits);
  const std::uint32_t subnormal = aligned_bits - 0x3f000000u;
  // Normal results: rebias the exponent (127 -> 15) and round 23 mantissa bits to 10.
  const std::uint32_t rebased = magnitude - (112u << 23);
  const std::uint32_t normal = (rebased + 0xfffu + ((rebased >> 13) & 1u)) >> 13;
  // Masks rather than ?: so that GCC if-converts the selects instead of branching.
  const std::uint32_t is_overflow = 0u - static_cast<std::uint32_t>(magnitude >= 0x477ff000u);
  const std::uint32_t is_subnormal = 0u - static_cast<std::uint32_t>(magnitude < 0x38800000u);
  const std::uint32_t finite = (subnormal & is_subnormal) | (normal & ~is_subnormal);
  const std::uint32_t result = (overflow & is_overflow) | (finite & ~is_overflow);
  return static_cast<std::uint16_t>(sign | result);
}

// OCP fp8 e4m3 (bias 7, no infinities, 0x7f NaN) and e5m2 (bias 15, IEEE-like: 0x7c infinity),
// round to nearest even, saturating at the largest finite value (448, 57344) as NCCL's
// __NV_SATFINITE conversions do.
float fp8_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8(float value);
float fp8_e5m2_to_float(std::uint8_t bits);
std::uint8_t float_to_fp8_e5m2(float value);

// Element `index` of a buffer of `t` as a float: exact for the 16-bit and 8-bit floats and for
// integers up to 2^24 (the values checks and host sums handle).
inline float load_value(DType t, const void* base, std::size_t index) {
  switch (t) {
    case DType::f32: return static_cast<const float*>(base)[index];
    case DType::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    case DType::f16: return fp16_to_float(static_cast<const std::uint16_t*>(base)[index]);
    case DType::fp8: return fp8_to_float(static_cast<const std::uint8_t*>(base)[index]);
    case DType::fp8_e5m2: return fp8_e5m2_to_float(static_cast<const std::uint8_t*>(base)[index]);
    case DType::f64: return static_cast<float>(static_cast<const double*>(base)[index]);
    case DType::i8: return static_cast<const std::int8_t*>(base)[index];
    case DType::u8: return static_cast<const std::uint8_t*>(base)[index];
    case DType::i32: return static_cast<float>(static_cast<const std::int32_t*>(base)[index]);
    case DType::u32: return static_cast<float>(static_cast<const std::uint32_t*>(base)[index]);
    case DType::i64: return static_cast<float>(static_cast<const std::int64_t*>(base)[index]);
    case DType::u64: return static_cast<float>(static_cast<const std::uint64_t*>(base)[index]);
  }
  return 0;
}

// Stores `value` in the types float does not round to (fp64 and the integers, truncated; callers
// store values the type holds); false for the floating types of 32 bits or fewer.
template <class Value>
inline bool store_wide(DType t, void* base, std::size_t index, Value value) {
  const auto as = [&]<class T>(T*) { static_cast<T*>(base)[index] = static_cast<T>(value); };
  switch (t) {
    case DType::f64: as(static_cast<double*>(nullptr)); return true;
    case DType::i8: as(static_cast<std::int8_t*>(nullptr)); return true;
    case DType::u8: as(static_cast<std::uint8_t*>(nullptr)); return true;
    case DType::i32: as(static_cast<std::int32_t*>(nullptr)); return true;
    case DType::u32: as(static_cast<std::uint32_t*>(nullptr)); return true;
    case DType::i64: as(static_cast<std::int64_t*>(nullptr)); return true;
    case DType::u64: as(static_cast<std::uint64_t*>(nullptr)); return true;
    default: return false;
  }
}

// Stores `value` rounded to `t` (integers: truncated; callers store values the type holds).
inline void store_value(DType t, void* base, std::size_t index, float value) {
  switch (t) {
    case DType::f32: static_cast<float*>(base)[index] = value; return;
    case DType::bf16: static_cast<std::uint16_t*>(base)[index] = float_to_bf16(value); return;
    case DType::f16: static_cast<std::uint16_t*>(base)[index] = float_to_fp16(value); return;
    case DType::fp8: static_cast<std::uint8_t*>(base)[index] = float_to_fp8(value); return;
    case DType::fp8_e5m2:
      static_cast<std::uint8_t*>(base)[index] = float_to_fp8_e5m2(value);
      return;
    default: store_wide(t, base, index, value); return;
  }
}

// As load_value and store_value, in double: exact for fp64 and 64-bit integers up to 2^53 too
// (what the data checks compare).
double load_exact(DType t, const void* base, std::size_t index);
void store_exact(DType t, void* base, std::size_t index, double value);

// inout[i] += in[i] for `elements` elements of `t`, in float (the host sum of MPI reductions):
// bf16, fp16 and fp32 only (collectives/values/host_reduce.hpp reduces the others).
void add_values(DType t, void* inout, const void* in, std::size_t elements);
// inout[i] += sum over `ins` of in[i], in one pass (each element is loaded and stored once).
void add_values(DType t, void* inout, std::span<const void* const> ins, std::size_t elements);
// out[i] = base[i] + sum over `ins` of in[i], in one pass; `base` may be `out`.
void add_values(DType t, void* out, const void* base, std::span<const void* const> ins,
                std::size_t elements);

}  // namespace collreplay
