// bf16/fp16 conversions used by the host fill, check and MPI sum ops.
#include <gtest/gtest.h>

#include "collectives/ops/host_values.hpp"

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
    unsigned char buffer[8];
    for (int v = -256; v <= 256; ++v) {
      store_value(t, buffer, 1, static_cast<float>(v));
      EXPECT_EQ(load_value(t, buffer, 1), static_cast<float>(v)) << dtype_name(t) << " " << v;
    }
    store_value(t, buffer, 0, 1000.0f);  // the poison value
    EXPECT_EQ(load_value(t, buffer, 0), 1000.0f);
  }
}

}  // namespace
}  // namespace collreplay
