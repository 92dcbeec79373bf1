#include "collectives/values/host_values.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// Blocks of a fixed length give the vectoriser a loop whose trip count divides by its vector
// width (GCC's -O2 cost model vectorises no other kind); the tail runs the same code unrolled.
constexpr std::size_t kBlock = 64;

template <typename Element, typename Load, typename Store>
void add_blocks(Element* __restrict inout, const Element* __restrict in, std::size_t elements,
                Load load, Store store) {
  std::size_t i = 0;
  for (; i + kBlock <= elements; i += kBlock)
    for (std::size_t j = 0; j < kBlock; ++j)
      inout[i + j] = store(load(inout[i + j]) + load(in[i + j]));
  for (; i < elements; ++i) inout[i] = store(load(inout[i]) + load(in[i]));
}

// Several sources in one pass: a block of partial sums in float lives in registers / L1 while
// every source's block is added to it, then is stored once. Within a block every load precedes
// every store, so `base` may be `out`.
template <typename Element, typename Load, typename Store>
void add_many(Element* out, const Element* base, std::span<const void* const> ins,
              std::size_t elements, Load load, Store store) {
  float partial[kBlock];
  for (std::size_t i = 0; i < elements; i += kBlock) {
    const std::size_t n = std::min(kBlock, elements - i);
    if (n == kBlock) {
      for (std::size_t j = 0; j < kBlock; ++j) partial[j] = load(base[i + j]);
      for (const void* in : ins) {
        const Element* __restrict source = static_cast<const Element*>(in) + i;
        for (std::size_t j = 0; j < kBlock; ++j) partial[j] += load(source[j]);
      }
      for (std::size_t j = 0; j < kBlock; ++j) out[i + j] = store(partial[j]);
    } else {
      for (std::size_t j = 0; j < n; ++j) {
        float sum = load(base[i + j]);
        for (const void* in : ins) sum += load(static_cast<const Element*>(in)[i + j]);
        out[i + j] = store(sum);
      }
    }
  }
}

}  // namespace

void add_values(DType t, void* inout, std::span<const void* const> ins, std::size_t elements) {
  if (ins.size() == 1) return add_values(t, inout, ins[0], elements);
  add_values(t, inout, inout, ins, elements);
}

void add_values(DType t, void* out, const void* base, std::span<const void* const> ins,
                std::size_t elements) {
  if (ins.empty() && out == base) return;
  switch (t) {
    case DType::f32:
      return add_many(
          static_cast<float*>(out), static_cast<const float*>(base), ins, elements,
          [](float v) { return v; }, [](float v) { return v; });
    case DType::bf16:
      return add_many(
          static_cast<std::uint16_t*>(out), static_cast<const std::uint16_t*>(base), ins, elements,
          [](std::uint16_t v) { return bf16_to_float(v); },
          [](float v) { return float_to_bf16(v); });
    case DType::f16:
      return add_many(
          static_cast<std::uint16_t*>(out), static_cast<const std::uint16_t*>(base), ins, elements,
          [](std::uint16_t v) { return fp16_to_float(v); },
          [](float v) { return float_to_fp16(v); });
    default: break;
  }
  throw UsageError("add_values sums bf16, fp16 or fp32 (reduce_values: every dtype)");
}

void add_values(DType t, void* inout, const void* in, std::size_t elements) {
  switch (t) {
    case DType::f32:
      return add_blocks(
          static_cast<float*>(inout), static_cast<const float*>(in), elements,
          [](float v) { return v; }, [](float v) { return v; });
    case DType::bf16:
      return add_blocks(
          static_cast<std::uint16_t*>(inout), static_cast<const std::uint16_t*>(in), elements,
          [](std::uint16_t v) { return bf16_to_float(v); },
          [](float v) { return float_to_bf16(v); });
    case DType::f16:
      return add_blocks(
          static_cast<std::uint16_t*>(inout), static_cast<const std::uint16_t*>(in), elements,
          [](std::uint16_t v) { return fp16_to_float(v); },
          [](float v) { return float_to_fp16(v); });
    default: break;
  }
  throw UsageError("add_values sums bf16, fp16 or fp32 (reduce_values: every dtype)");
}

namespace {

// An 8-bit float: sign, `exponent_bits`, `mantissa_bits`, bias 2^(exponent_bits-1) - 1.
struct Fp8Format {
  int mantissa_bits;
  int bias;
  bool has_infinity;      // e5m2: all-ones exponent is infinity / NaN, as in IEEE formats
  double max_finite;      // 448 (e4m3), 57344 (e5m2)
  std::uint8_t max_code;  // the code of max_finite
  std::uint8_t nan_code;
};
constexpr Fp8Format kE4m3{3, 7, false, 448.0, 0x7e, 0x7f};
constexpr Fp8Format kE5m2{2, 15, true, 57344.0, 0x7b, 0x7f};

float decode(const Fp8Format& f, std::uint8_t bits) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int exponent = (bits & 0x7f) >> f.mantissa_bits;
  const int all_ones = 0x7f >> f.mantissa_bits;
  if (exponent == all_ones && (f.has_infinity || mantissa == (1 << f.mantissa_bits) - 1)) {
    if (f.has_infinity && mantissa == 0) return sign * INFINITY;
    return std::nanf("");
  }
  if (exponent == 0)  // subnormal
    return sign * std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissa_bits);
  return sign * std::ldexp(1.0f + std::ldexp(static_cast<float>(mantissa), -f.mantissa_bits),
                           exponent - f.bias);
}

// Nearest value in units of the quantum of the value's binade (subnormals share the smallest
// binade's), ties to even: nearbyint under the default rounding mode.
std::uint8_t encode(const Fp8Format& f, float value) {
  if (std::isnan(value)) return f.nan_code;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= f.max_finite) return sign | f.max_code;
  if (magnitude == 0) return sign;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  const int binade = std::max(exponent - 1, 1 - f.bias);
  const double units = std::nearbyint(std::ldexp(magnitude, f.mantissa_bits - binade));
  const double rounded = std::ldexp(units, binade - f.mantissa_bits);
  if (rounded > f.max_finite) return sign | f.max_code;
  if (rounded == 0) return sign;
  std::frexp(rounded, &exponent);
  const int rounded_binade = exponent - 1;
  if (rounded_binade < 1 - f.bias)  // subnormal: exponent field 0
    return static_cast<std::uint8_t>(sign | static_cast<int>(units));
  const int mantissa = static_cast<int>(std::ldexp(rounded, f.mantissa_bits - rounded_binade)) -
                       (1 << f.mantissa_bits);
  return static_cast<std::uint8_t>(sign | ((rounded_binade + f.bias) << f.mantissa_bits) |
                                   mantissa);
}

}  // namespace

float fp8_to_float(std::uint8_t bits) { return decode(kE4m3, bits); }
std::uint8_t float_to_fp8(float value) { return encode(kE4m3, value); }
float fp8_e5m2_to_float(std::uint8_t bits) { return decode(kE5m2, bits); }
std::uint8_t float_to_fp8_e5m2(float value) { return encode(kE5m2, value); }

double load_exact(DType t, const void* base, std::size_t index) {
  switch (t) {
    case DType::f64: return static_cast<const double*>(base)[index];
    case DType::i32: return static_cast<const std::int32_t*>(base)[index];
    case DType::u32: return static_cast<const std::uint32_t*>(base)[index];
    case DType::i64: return static_cast<double>(static_cast<const std::int64_t*>(base)[index]);
    case DType::u64: return static_cast<double>(static_cast<const std::uint64_t*>(base)[index]);
    default: return load_value(t, base, index);  // exact in float
  }
}

void store_exact(DType t, void* base, std::size_t index, double value) {
  if (!store_wide(t, base, index, value)) store_value(t, base, index, static_cast<float>(value));
}

}  // namespace collreplay
