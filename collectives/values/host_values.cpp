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
    case DType::fp8: break;
  }
  throw UsageError("host sums are bf16, fp16 or fp32; fp8 is a transfer dtype only");
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
    case DType::fp8: break;
  }
  throw UsageError("host sums are bf16, fp16 or fp32; fp8 is a transfer dtype only");
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
    const float here = std::fabs(fp8_to_float(code) - magnitude);
    const float there = std::fabs(fp8_to_float(best) - magnitude);
    if (here < there || (here == there && (code & 1) == 0)) best = code;
  }
  return static_cast<std::uint8_t>(sign | best);
}

}  // namespace collreplay
