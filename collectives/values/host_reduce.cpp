#include "collectives/values/host_reduce.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "collectives/values/host_values.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

// How the host holds one dtype: its storage type and the type it computes in.
template <typename T>
struct Native {
  using Stored = T;
  using Math = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
template <typename S, float (*Load)(S), S (*Store)(float)>
struct InFloat {
  using Stored = S;
  using Math = float;
  static float load(S v) { return Load(v); }
  static S store(float v) { return Store(v); }
};
using Bf16 = InFloat<std::uint16_t, bf16_to_float, float_to_bf16>;
using Fp16 = InFloat<std::uint16_t, fp16_to_float, float_to_fp16>;
using E4m3 = InFloat<std::uint8_t, fp8_to_float, float_to_fp8>;
using E5m2 = InFloat<std::uint8_t, fp8_e5m2_to_float, float_to_fp8_e5m2>;

// Calls f(Codec{}) with the codec of `t`.
template <typename F>
void with_codec(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(Native<float>{});
    case DType::f64: return f(Native<double>{});
    case DType::i8: return f(Native<std::int8_t>{});
    case DType::u8: return f(Native<std::uint8_t>{});
    case DType::i32: return f(Native<std::int32_t>{});
    case DType::u32: return f(Native<std::uint32_t>{});
    case DType::i64: return f(Native<std::int64_t>{});
    case DType::u64: return f(Native<std::uint64_t>{});
    case DType::bf16: return f(Bf16{});
    case DType::f16: return f(Fp16{});
    case DType::fp8: return f(E4m3{});
    case DType::fp8_e5m2: return f(E5m2{});
  }
  throw RuntimeError("reduce_values: unknown dtype");
}

// Integers wrap as the GPU's do: the arithmetic runs on the unsigned type of the same width.
template <typename M>
M add(M a, M b) {
  if constexpr (std::is_integral_v<M>) {
    using U = std::make_unsigned_t<M>;
    return static_cast<M>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename M>
M multiply(M a, M b) {
  if constexpr (std::is_integral_v<M>) {
    using U = std::make_unsigned_t<M>;
    return static_cast<M>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// A block of results lives in `Math` while every source's block is combined into it, then is
// stored once; within a block every load precedes every store, so `base` may be `out`.
template <typename Codec, typename Combine>
void reduce_blocks(void* out, const void* base, std::span<const void* const> ins,
                   std::size_t elements, Combine combine) {
  using Stored = typename Codec::Stored;
  constexpr std::size_t kBlock = 256;
  typename Codec::Math acc[kBlock];
  auto* o = static_cast<Stored*>(out);
  const auto* b = static_cast<const Stored*>(base);
  for (std::size_t i = 0; i < elements; i += kBlock) {
    const std::size_t n = std::min(kBlock, elements - i);
    for (std::size_t j = 0; j < n; ++j) acc[j] = Codec::load(b[i + j]);
    for (const void* in : ins) {
      const Stored* source = static_cast<const Stored*>(in) + i;
      for (std::size_t j = 0; j < n; ++j) acc[j] = combine(acc[j], Codec::load(source[j]));
    }
    for (std::size_t j = 0; j < n; ++j) o[i + j] = Codec::store(acc[j]);
  }
}

}  // namespace

void reduce_values(DType t, ReduceOp op, void* out, const void* base,
                   std::span<const void* const> ins, std::size_t elements) {
  const bool summed = op == ReduceOp::sum || op == ReduceOp::avg;
  if (summed && (t == DType::bf16 || t == DType::f16 || t == DType::f32))
    return add_values(t, out, base, ins, elements);  // the vectorised sums
  with_codec(t, [&](auto codec) {
    using Codec = decltype(codec);
    using M = typename Codec::Math;
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::avg:
        return reduce_blocks<Codec>(out, base, ins, elements, [](M a, M b) { return add(a, b); });
      case ReduceOp::prod:
        return reduce_blocks<Codec>(out, base, ins, elements,
                                    [](M a, M b) { return multiply(a, b); });
      case ReduceOp::min:
        return reduce_blocks<Codec>(out, base, ins, elements,
                                    [](M a, M b) { return b < a ? b : a; });
      case ReduceOp::max:
        return reduce_blocks<Codec>(out, base, ins, elements,
                                    [](M a, M b) { return a < b ? b : a; });
    }
  });
}

double average_factor(DType t, int ranks) {
  if (t == DType::f64) return 1.0 / ranks;
  // NCCL computes float(1.0 / nRanks) and converts that to the type.
  const auto in_float = static_cast<float>(1.0 / ranks);
  unsigned char rounded[8];
  store_value(t, rounded, 0, in_float);
  return load_value(t, rounded, 0);
}

void premultiply_values(DType t, void* data, std::size_t elements, int ranks) {
  if (dtype_is_integer(t)) throw RuntimeError("premultiply_values: integers are post-divided");
  const double factor = average_factor(t, ranks);
  with_codec(t, [&](auto codec) {
    using Codec = decltype(codec);
    using M = typename Codec::Math;
    auto* d = static_cast<typename Codec::Stored*>(data);
    // The product of the type's value and the factor is exact in M (both have at most half of
    // M's mantissa, or M is the type), so one rounding to the type remains, as on the GPU.
    for (std::size_t i = 0; i < elements; ++i)
      d[i] = Codec::store(Codec::load(d[i]) * static_cast<M>(factor));
  });
}

void postdivide_values(DType t, void* data, std::size_t elements, int ranks) {
  if (!dtype_is_integer(t)) throw RuntimeError("postdivide_values: floats are premultiplied");
  with_codec(t, [&](auto codec) {
    using Codec = decltype(codec);
    using M = typename Codec::Math;
    if constexpr (std::is_integral_v<M>) {
      auto* d = static_cast<typename Codec::Stored*>(data);
      // In 64 bits: the rank count need not fit the type (int8 over 200 ranks).
      using Wide = std::conditional_t<std::is_signed_v<M>, std::int64_t, std::uint64_t>;
      const auto divisor = static_cast<Wide>(ranks);
      for (std::size_t i = 0; i < elements; ++i)
        d[i] = static_cast<M>(static_cast<Wide>(d[i]) / divisor);
    }
  });
}

}  // namespace collreplay
