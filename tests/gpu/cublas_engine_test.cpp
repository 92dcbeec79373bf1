// The cuBLASLt engine: results against a host reference, and timings that make physical sense.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <vector>

#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/gemm/gemm_selfcheck.hpp"
#include "common/errors.hpp"
#include "engine_timing.hpp"
#include "gpu_env.hpp"

namespace collreplay {
namespace {

using testing_gpu::time_op;
using testing_gpu::have_gpu;
using testing_gpu::my_device;

TEST(CublasEngine, MatchesHostReference) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  const GemmShape shapes[] = {
      {64, 96, 128, 1, "plain"}, {48, 80, 112, 3, "batched"}, {1, 256, 64, 1, "one row"},
      // A weight gradient dW = dY^T X: A stored [k x m], k an odd count of rows.
      {64, 96, 127, 1, "A transposed", true}, {48, 80, 113, 2, "A transposed, batched", true}};
  for (const GemmShape& s : shapes)
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
      const GemmCheckResult r = check_cublas_gemm(my_device(), s, t);
      EXPECT_LT(r.relative_error(), 1e-2)
          << s.label << " " << dtype_name(t) << " max abs error " << r.max_abs_error;
    }
}


double tflops(const GemmShape& s, double ms) {
  return 2.0 * s.m * s.n * s.k * s.batch / (ms * 1e-3) / 1e12;
}

TEST(CublasEngine, TimingIsPlausibleAndScaleStretches) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  // Qwen2.5-7B layer GEMMs at 4096 tokens (reference: 544-681 TFLOP/s with torch.matmul on H200)
  // and the 8192^3 reference (735 TFLOP/s).
  const std::vector<GemmShape> shapes = {{4096, 3584, 3584, 1, "q_proj/o_proj"},
                                         {4096, 512, 3584, 1, "k_proj/v_proj"},
                                         {4096, 18944, 3584, 1, "gate/up_proj"},
                                         {4096, 3584, 18944, 1, "down_proj"},
                                         {8192, 8192, 8192, 1, "8192^3"}};
  auto engine = make_cublas_engine(my_device());
  const std::uint64_t reserved = engine->reserve(shapes, DType::bf16);
  EXPECT_GT(reserved, 0u);
  for (const GemmShape& s : shapes) {
    const ComputeOp op{DType::bf16, {s}, {}, 0};
    const double ms = time_op(*engine, op, 1.0, 20);
    const double rate = tflops(s, ms);
    std::printf("[ gemm ] %-14s %6lldx%6lldx%6lld  %8.3f ms  %6.1f TFLOP/s\n", s.label.c_str(),
                static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), ms, rate);
    EXPECT_GT(rate, 50.0) << s.label;    // far below any tensor-core GPU of this class
    EXPECT_LT(rate, 2500.0) << s.label;  // above H200's dense bf16 peak: not really computed
  }
  const ComputeOp big{DType::bf16, {shapes[4]}, {}, 0};
  const double one = time_op(*engine, big, 1.0, 5);
  const double two_and_half = time_op(*engine, big, 2.5, 5);
  EXPECT_NEAR(two_and_half / one, 2.5, 0.25);
  std::cout << "[ engine ] " << engine->description() << "\n";
}

TEST(CublasEngine, RefusesWhatCannotFit) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  auto engine = make_cublas_engine(my_device());
  // 3 x 2^40 bf16 elements: far beyond any GPU's memory.
  const std::vector<GemmShape> huge = {{1 << 20, 1 << 20, 1 << 20, 1, "huge"}};
  EXPECT_THROW(engine->reserve(huge, DType::bf16), UsageError);
}

}  // namespace
}  // namespace collreplay
