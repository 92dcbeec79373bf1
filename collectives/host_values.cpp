#include "collectives/host_values.hpp"

#include <algorithm>
#include <cmath>

namespace collreplay {

float fp16_to_float(std::uint16_t bits) {
  const int sign = (bits >> 15) ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

std::uint16_t float_to_fp16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00;  // rounds past 65504: infinity
  if (magnitude < 0x38800000u) {                       // below fp16's smallest normal
    const float scaled = std::fabs(value) * 16777216.0f;  // in units of 2^-24, exact
    return sign | static_cast<std::uint16_t>(std::nearbyint(scaled));
  }
  // Rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits, nearest even.
  const std::uint32_t rebased = magnitude - (112u << 23);
  const std::uint32_t rounding = 0xfffu + ((rebased >> 13) & 1u);
  return sign | static_cast<std::uint16_t>((rebased + rounding) >> 13);
}

float fp8_to_float(std::uint8_t bits) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int exponent = (bits >> 3) & 0xf, mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::nanf("");
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);  // subnormal
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / 8, exponent - 7);
}

std::uint8_t float_to_fp8(float value) {
  if (std::isnan(value)) return 0x7f;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const float magnitude = std::min(std::fabs(value), 448.0f);
  // The nearest of the 127 non-negative codes (ties to the even code), by search: exact and
  // short, and speed does not matter for check data.
  std::uint8_t best = 0;
  for (std::uint8_t code = 1; code < 0x7f; ++code) {
    const float here = std::fabs(fp8_to_float(code) - magnitude), there = std::fabs(fp8_to_float(best) - magnitude);
    if (here < there || (here == there && (code & 1) == 0)) best = code;
  }
  return static_cast<std::uint8_t>(sign | best);
}

}  // namespace collreplay
