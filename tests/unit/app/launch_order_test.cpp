#include "bench/compute/launch_order.hpp"

#include <gtest/gtest.h>

namespace collreplay {
namespace {

// A foreach call over bf16 tensors of `elements` in all: one list read and one written.
KernelSlice foreach_call(std::uint64_t launches, std::uint64_t elements) {
  KernelSlice k;
  k.kind = KernelKind::multi_tensor;
  k.launches = launches;
  k.elements = elements;
  k.read_bytes = k.write_bytes = 2 * elements;
  k.operand_element_bytes = 2;
  return k;
}

// A slice of four launches is four shares that walk on through memory (share 0..3), each a
// quarter of the bytes and elements: the engines start each share where the one before it
// ended, so a foreach op's launches do not re-read one L2-sized share as if it were four. A
// foreach call's host time all comes before its first launch (the launches follow back to back).
TEST(LaunchOrder, ASliceOfFourLaunchesIsFourSuccessiveShares) {
  ComputeOp op;
  op.kernels = {foreach_call(4, 4 << 20)};
  op.host_us = 40;
  const std::vector<Launch> launches = launch_order(op, 1.0);
  ASSERT_EQ(launches.size(), 4u);
  for (std::uint64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(launches[i].share.index, i);
    EXPECT_EQ(launches[i].share.count, 4u);
    EXPECT_EQ(launches[i].kernel.launches, 1u);
    EXPECT_EQ(launches[i].kernel.elements, std::uint64_t{1} << 20);
    EXPECT_EQ(launches[i].kernel.read_bytes, std::uint64_t{2} << 20);
    EXPECT_DOUBLE_EQ(launches[i].host_us, i == 0 ? 40 : 0);
  }
  EXPECT_EQ(largest_kernel_launch_bytes(op), std::uint64_t{2} << 20);
}

// Other launches each wait their share of the op's host time; a foreach call within the op takes
// its launches' shares before its first.
TEST(LaunchOrder, HostTimeIsSpreadOverLaunchesAndAForeachCallsComesFirst) {
  ComputeOp op;
  KernelSlice vector;
  vector.kind = KernelKind::vector;
  vector.launches = 2;
  vector.elements = 1024;
  vector.read_bytes = vector.write_bytes = 2048;
  KernelSlice one_call = vector;
  one_call.kind = KernelKind::multi_tensor;
  one_call.launches = 3;
  one_call.operand_element_bytes = 2;
  op.kernels = {vector, one_call};
  op.host_us = 50;
  const std::vector<Launch> launches = launch_order(op, 1.0);
  ASSERT_EQ(launches.size(), 5u);
  const double expected[] = {10, 10, 30, 0, 0};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(launches[i].host_us, expected[i]) << i;
}

// multi_tensor_apply launches a foreach call's chunk lists one launch's host time apart: a
// slice's later launches keep that much of their share (at most the share), the first takes the
// rest, and the op's host time is unchanged. An engine's own launch then runs inside each
// launch's host time: with nothing after the first it ran on top of the charge, 720 times in
// Qwen3-30B-A3B's looped optimizer step.
TEST(LaunchOrder, AForeachCallsLaterLaunchesKeepTheirOwnHostTime) {
  ComputeOp op;
  op.kernels = {foreach_call(4, 4096)};
  op.kernels[0].host_us_per_launch = 3;
  op.host_us = 40;
  std::vector<Launch> launches = launch_order(op, 1.0);
  ASSERT_EQ(launches.size(), 4u);
  const double expected[] = {31, 3, 3, 3};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(launches[i].host_us, expected[i]) << i;
  // A launch's own host time above its share of the op's is held to the share.
  op.kernels[0].host_us_per_launch = 25;
  launches = launch_order(op, 1.0);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(launches[i].host_us, 10) << i;
}

}  // namespace
}  // namespace collreplay
