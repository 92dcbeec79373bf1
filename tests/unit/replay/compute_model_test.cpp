// Modeled compute: the spec, the modeled duration, and the engine's timeline (its events are
// instants on a modeled clock, so the op times are exact whatever the host's load).
#include "bench/compute/compute_model.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "common/errors.hpp"

namespace collreplay {
namespace {

ComputeOp one_gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  ComputeOp op;
  op.gemms.push_back({m, n, k, 1, "g"});
  return op;
}

TEST(ComputeModel, ParsesGpuAndMfu) {
  const ComputeModel h100 = parse_compute_model("model:h100");
  EXPECT_EQ(h100.gpu.name, "h100");
  EXPECT_DOUBLE_EQ(h100.mfu, kDefaultModelMfu);
  const ComputeModel b200 = parse_compute_model("model:B200@0.4");
  EXPECT_EQ(b200.gpu.name, "b200");
  EXPECT_DOUBLE_EQ(b200.mfu, 0.4);
  EXPECT_EQ(b200.name(), "model:b200@0.4");
}

TEST(ComputeModel, BadSpecsAreUsageErrors) {
  for (const char* bad :
       {"model:xyz", "model:", "model:h100@0", "model:h100@1.5", "model:h100@half", "blas"})
    EXPECT_THROW(parse_compute_model(bad), UsageError) << bad;
  try {
    parse_compute_model("model:xyz");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("h100"), std::string::npos) << e.what();  // the known GPUs
  }
}

TEST(ComputeModel, DurationIsFlopsOverPeakTimesMfu) {
  const ComputeModel h100 = parse_compute_model("model:h100@0.5");
  // 2 * 8192^3 FLOPs at 494.7 TFLOP/s: 2.2226 ms.
  const double ms = modeled_ms(one_gemm(8192, 8192, 8192).gemms, h100);
  EXPECT_NEAR(ms, 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * 0.5) * 1e3, 1e-9);
  GemmShape batched{128, 128, 128, 4, "b"};
  EXPECT_DOUBLE_EQ(modeled_ms({batched}, h100),
                   4 * modeled_ms(one_gemm(128, 128, 128).gemms, h100));
}

TEST(ComputeModel, MultiTensorKernelsAreModeledAsVectorKernelsOfTheirBytes) {
  // No fitted constant for multi_tensor_apply: the model prices its bytes as a vector kernel's
  // (the GPU engine runs and measures the real walk).
  const ComputeModel h100 = parse_compute_model("model:h100");
  KernelSlice vector;
  vector.kind = KernelKind::vector;
  vector.elements = 64ull << 20;
  vector.read_bytes = 4 * vector.elements * 2;
  vector.write_bytes = 3 * vector.elements * 2;
  KernelSlice fused = vector;
  fused.kind = KernelKind::multi_tensor;
  fused.operand_element_bytes = 2;
  const double ms = modeled_kernel_ms(fused, h100);
  EXPECT_GT(ms, 0);
  EXPECT_DOUBLE_EQ(ms, modeled_kernel_ms(vector, h100));
  // 896 MiB at most 3.35 TB/s: at least 0.28 ms.
  EXPECT_GT(ms, 7.0 * (64 << 20) * 2 / 3.35e12 * 1e3);
}

// MFU divides by the GPU's own peak, by the name CUDA gives it; a GPU not listed has none.
TEST(ComputeModel, TheDevicesPeakComesFromItsName) {
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA H100 80GB HBM3"), 989.4);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA H200"), 989.4);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA H100 PCIe"), 756.0);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA H100 NVL"), 835.5);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA A100-SXM4-80GB"), 312.0);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA A100 80GB PCIe"), 312.0);
  EXPECT_DOUBLE_EQ(*device_bf16_dense_tflops("NVIDIA B200"), 2250.0);
  EXPECT_FALSE(device_bf16_dense_tflops("NVIDIA GeForce RTX 4090"));
  EXPECT_FALSE(device_bf16_dense_tflops(""));
}

// Per-element (generic) kernels follow the CUDA-core fp32 peak: an A100 (19.5 TFLOP/s) is
// 67 / 19.5 times slower at them than an H100 (67), not 989.4 / 312 (the tensor cores' ratio).
TEST(ComputeModel, GenericKernelsFollowTheFp32Peak) {
  KernelSlice k;
  k.kind = KernelKind::generic;
  k.elements = 1ull << 30;
  k.read_bytes = k.write_bytes = 1;  // bound by the elements, not the bytes
  const double h100_ms = modeled_kernel_ms(k, parse_compute_model("model:h100"));
  const double a100_ms = modeled_kernel_ms(k, parse_compute_model("model:a100"));
  EXPECT_NEAR(a100_ms / h100_ms, 67.0 / 19.5, 1e-9);
  EXPECT_NEAR(h100_ms, (1ull << 30) / 340e9 * 1e3, 1e-9);  // 340 G elements/s on an H100
}

TEST(ComputeModel, EventsAreTheModeledDurationsBackToBack) {
  const ComputeModel a100 = parse_compute_model("model:a100@1");
  const auto engine = make_model_engine(a100, 1);
  const ComputeOp op = one_gemm(1024, 1024, 1024);  // 6.88 us at 312 TFLOP/s
  const double expected_ms = modeled_ms(op.gemms, a100);
  const auto before = engine->record();
  engine->issue(op, 1.0, {});
  engine->issue(op, 2.0, {});  // stretched: twice the work
  const auto after = engine->record();
  after->synchronize();
  EXPECT_TRUE(after->query());
  // Back to back on the modeled timeline: exactly 3 durations, plus whatever passed between the
  // first record() and the first issue() (microseconds at most).
  const double elapsed = after->elapsed_ms_since(*before);
  EXPECT_GE(elapsed, 3 * expected_ms * (1 - 1e-9));
  EXPECT_LT(elapsed, 3 * expected_ms + 50.0);
}

TEST(ComputeModel, DilationStretchesTheWait) {
  const ComputeModel h100 = parse_compute_model("model:h100@0.5");
  const auto engine = make_model_engine(h100, 4);
  const ComputeOp op = one_gemm(4096, 4096, 4096);
  const auto start = std::chrono::steady_clock::now();
  const auto before = engine->record();
  engine->issue(op, 1.0, {});
  const auto after = engine->record();
  engine->synchronize();
  const double waited_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double modeled = modeled_ms(op.gemms, h100);
  EXPECT_GE(after->elapsed_ms_since(*before), 4 * modeled * (1 - 1e-9));
  EXPECT_GE(waited_ms, 4 * modeled * (1 - 1e-6));  // a sleep never ends early
  EXPECT_NE(engine->description().find("x4"), std::string::npos) << engine->description();
  EXPECT_THROW(make_model_engine(h100, 0), UsageError);
}

}  // namespace
}  // namespace collreplay
