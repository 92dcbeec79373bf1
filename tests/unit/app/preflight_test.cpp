#include "bench/preflight/preflight.hpp"

#include <gtest/gtest.h>

namespace collreplay {
namespace {

TEST(Preflight, NamesRanksSlowerThanTheMedianByMoreThanTheThreshold) {
  const std::vector<double> gemm_ms{10, 10.5, 12, 9.8};
  const std::vector<std::string> hosts{"a", "a", "b", "b"};
  const std::vector<std::string> devices{"GPU 0", "GPU 1", "GPU 0", "GPU 1"};
  const auto problems = slow_rank_problems(gemm_ms, hosts, devices, 0.10);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("rank 2 on b (GPU 0)"), std::string::npos) << problems[0];
  EXPECT_TRUE(slow_rank_problems(gemm_ms, hosts, devices, 0.20).empty());
}

}  // namespace
}  // namespace collreplay
