// fp8 (OCP e4m3) host conversion: the encodings the -c check of fp8 all-to-alls relies on.
#include <gtest/gtest.h>

#include <cmath>

#include "collectives/values/host_values.hpp"
#include "common/dtype.hpp"

namespace collreplay {
namespace {

TEST(Fp8, KnownEncodings) {
  EXPECT_EQ(float_to_fp8(1.0f), 0x38);
  EXPECT_EQ(float_to_fp8(2.0f), 0x40);
  EXPECT_EQ(float_to_fp8(-2.0f), 0xc0);
  EXPECT_EQ(float_to_fp8(0.5f), 0x30);
  EXPECT_EQ(float_to_fp8(448.0f), 0x7e);
  EXPECT_EQ(float_to_fp8(1e6f), 0x7e);                  // saturates
  EXPECT_EQ(float_to_fp8(std::ldexp(1.0f, -9)), 0x01);  // smallest subnormal
  EXPECT_EQ(float_to_fp8(1.0625f), 0x38);               // halfway between 1 and 1.125: ties to even
  EXPECT_TRUE(std::isnan(fp8_to_float(0x7f)));
}

TEST(Fp8, FillValuesRoundTripAndTheSizeIsOneByte) {
  for (int v = -2; v <= 2; ++v) EXPECT_EQ(fp8_to_float(float_to_fp8(static_cast<float>(v))), v);
  unsigned char buffer[4];
  store_value(DType::fp8, buffer, 3, -1.5f);
  EXPECT_EQ(load_value(DType::fp8, buffer, 3), -1.5f);
  EXPECT_EQ(dtype_size_bytes(DType::fp8), 1u);
  EXPECT_EQ(parse_dtype("fp8"), DType::fp8);
  EXPECT_EQ(dtype_name(DType::fp8), "fp8");
}

}  // namespace
}  // namespace collreplay
