#include "bench/compute/launch_order.hpp"

#include <gtest/gtest.h>

namespace collreplay {
namespace {

// A slice of four launches is four shares that walk on through memory (share 0..3), each a
// quarter of the bytes and elements, the op's host time spread over them: the engines start
// each share where the one before it ended, so a foreach op's launches do not re-read one
// L2-sized share as if it were four.
TEST(LaunchOrder, ASliceOfFourLaunchesIsFourSuccessiveShares) {
  ComputeOp op;
  KernelSlice k;
  k.kind = KernelKind::multi_tensor;
  k.launches = 4;
  k.elements = 4 << 20;
  k.read_bytes = k.write_bytes = 8 << 20;
  k.operand_element_bytes = 2;
  op.kernels = {k};
  op.host_us = 40;
  const std::vector<Launch> launches = launch_order(op, 1.0);
  ASSERT_EQ(launches.size(), 4u);
  for (std::uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(launches[i].share.index, i);
    EXPECT_EQ(launches[i].share.count, 4u);
    EXPECT_EQ(launches[i].kernel.launches, 1u);
    EXPECT_EQ(launches[i].kernel.elements, std::uint64_t{1} << 20);
    EXPECT_EQ(launches[i].kernel.read_bytes, std::uint64_t{2} << 20);
    EXPECT_DOUBLE_EQ(launches[i].host_us, 10);
  }
  EXPECT_EQ(largest_kernel_launch_bytes(op), std::uint64_t{2} << 20);
}

}  // namespace
}  // namespace collreplay
