// bf16/fp16 conversions used by the host fill, check and MPI sum ops.
#include <gtest/gtest.h>

#include "common/errors.hpp"

#include "collectives/values/host_values.hpp"

#include <vector>

namespace collreplay {
namespace {

TEST(HostValues, KnownBitPatterns) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(1e6f), 0x7c00);
  EXPECT_FLOAT_EQ(fp16_to_float(0x0001), 5.9604645e-8f);
  EXPECT_EQ(float_to_bf16(1.00390625f), 0x3f80);  // halfway: rounds to even
}

TEST(HostValues, SmallIntegersRoundTripExactly) {
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    unsigned char buffer[16];  // room for index 1 of any dtype
    for (int v = -256; v <= 256; ++v) {
      store_value(t, buffer, 1, static_cast<float>(v));
      EXPECT_EQ(load_value(t, buffer, 1), static_cast<float>(v)) << dtype_name(t) << " " << v;
    }
    store_value(t, buffer, 0, 1000.0f);  // the poison value
    EXPECT_EQ(load_value(t, buffer, 0), 1000.0f);
  }
}

TEST(HostValues, AddValuesIsExactOnSmallIntegersAtEveryLength) {
  // Lengths around the vector blocks; sums of the fill pattern's small integers are exact.
  for (DType t : {DType::bf16, DType::f16, DType::f32})
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                          std::size_t{65}, std::size_t{1000}}) {
      const std::size_t es = dtype_size_bytes(t);
      std::vector<unsigned char> sum((n + 1) * es), add((n + 1) * es);
      for (std::size_t i = 0; i <= n; ++i) {
        store_value(t, sum.data(), i, static_cast<float>(static_cast<int>(i % 97) - 48));
        store_value(t, add.data(), i, static_cast<float>(static_cast<int>(i % 13) * 3));
      }
      add_values(t, sum.data(), add.data(), n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(load_value(t, sum.data(), i),
                  static_cast<float>(static_cast<int>(i % 97) - 48 + static_cast<int>(i % 13) * 3))
            << dtype_name(t) << " n=" << n << " i=" << i;
      // The element past the end is untouched.
      EXPECT_EQ(load_value(t, sum.data(), n), static_cast<float>(static_cast<int>(n % 97) - 48));
    }
}

TEST(HostValues, AddingSeveralSourcesInOnePassIsExact) {
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    const std::size_t n = 130, es = dtype_size_bytes(t);  // two blocks and a tail
    std::vector<std::vector<unsigned char>> sources(3, std::vector<unsigned char>(n * es));
    std::vector<unsigned char> sum(n * es);
    for (std::size_t i = 0; i < n; ++i) {
      store_value(t, sum.data(), i, static_cast<float>(i % 7));
      for (std::size_t s = 0; s < sources.size(); ++s)
        store_value(t, sources[s].data(), i, static_cast<float>((i + s) % 5) - 2);
    }
    const std::vector<const void*> ins{sources[0].data(), sources[1].data(), sources[2].data()};
    add_values(t, sum.data(), ins, n);
    for (std::size_t i = 0; i < n; ++i) {
      float expected = static_cast<float>(i % 7);
      for (std::size_t s = 0; s < sources.size(); ++s)
        expected += static_cast<float>((i + s) % 5) - 2;
      ASSERT_EQ(load_value(t, sum.data(), i), expected) << dtype_name(t) << " " << i;
    }
  }
}

// The reduce-scatter's first pass: out = base + sources, base left as it was; fp8 is refused.
TEST(HostValues, AddingOntoASeparateBaseLeavesTheBaseAlone) {
  for (DType t : {DType::bf16, DType::f16, DType::f32}) {
    const std::size_t n = 130, es = dtype_size_bytes(t);
    std::vector<unsigned char> base(n * es), source(n * es), out(n * es);
    for (std::size_t i = 0; i < n; ++i) {
      store_value(t, base.data(), i, static_cast<float>(i % 7));
      store_value(t, source.data(), i, static_cast<float>(i % 5) - 2);
      store_value(t, out.data(), i, 1000.0f);  // poison: every element must be written
    }
    const std::vector<const void*> ins{source.data()};
    add_values(t, out.data(), base.data(), ins, n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(load_value(t, out.data(), i),
                static_cast<float>(i % 7) + static_cast<float>(i % 5) - 2)
          << dtype_name(t) << " " << i;
      ASSERT_EQ(load_value(t, base.data(), i), static_cast<float>(i % 7)) << dtype_name(t);
    }
  }
  std::vector<unsigned char> bytes(8);
  const std::vector<const void*> ins{bytes.data()};
  EXPECT_THROW(add_values(DType::fp8, bytes.data(), bytes.data(), ins, 8), UsageError);
}

TEST(HostValues, Fp16ConversionsRoundTripEveryPattern) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const auto half = static_cast<std::uint16_t>(bits);
    const float value = fp16_to_float(half);
    if (value != value) {  // NaN stays a NaN
      EXPECT_GT(float_to_fp16(value) & 0x7fffu, 0x7c00u) << bits;
      continue;
    }
    EXPECT_EQ(float_to_fp16(value), half) << bits;
  }
  EXPECT_EQ(float_to_fp16(2.9802322e-8f), 0x0000);  // half of the smallest subnormal: to even
  EXPECT_EQ(float_to_fp16(8.940697e-8f), 0x0002);   // 1.5 units: to even (2)
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);       // halfway past 65504: infinity
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
}

}  // namespace
}  // namespace collreplay
