// Grouped GEMMs (--experts grouped, torch._grouped_mm's work): the grouped call writes what a
// cuBLASLt GEMM per group writes, empty groups included; a grouped slice of Qwen3-30B-A3B's
// experts runs at a rate a tensor-core GPU can reach for the FLOPs its groups hold (a call that
// skipped groups would run above peak), and the calibration stretch scales it.
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/cuda/grouped_gemm.hpp"
#include "bench/compute/cuda/lt_gemm.hpp"
#include "bench/compute/cuda/random_fill.hpp"
#include "collectives/device/cuda_check.hpp"
#include "gpu_env.hpp"
#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

using testing_gpu::have_gpu;
using testing_gpu::my_device;

std::vector<float> to_host(const void* c, std::size_t elems) {
  std::vector<__nv_bfloat16> raw(elems);
  CUDA_CHECK(cudaMemcpy(raw.data(), c, elems * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  std::vector<float> out(elems);
  for (std::size_t i = 0; i < elems; ++i) out[i] = __bfloat162float(raw[i]);
  return out;
}

// Runs g grouped, then each group as its own GEMM at the same offsets; the outputs must agree.
void check_against_per_group(const GemmShape& g) {
  CUDA_CHECK(cudaSetDevice(my_device()));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    LtGemm lt(my_device(), stream);
    GroupedGemm grouped(stream, lt, DType::bf16);
    std::cout << "[ grouped ] " << grouped.path() << "\n";
    const std::size_t a_el = g.m * g.k * g.batch, b_el = g.k * g.n * g.batch,
                      c_el = g.m * g.n * g.batch, bytes = 2;
    void *a = nullptr, *b = nullptr, *c1 = nullptr, *c2 = nullptr;
    CUDA_CHECK(cudaMalloc(&a, a_el * bytes));
    CUDA_CHECK(cudaMalloc(&b, b_el * bytes));
    CUDA_CHECK(cudaMalloc(&c1, c_el * bytes));
    CUDA_CHECK(cudaMalloc(&c2, c_el * bytes));
    device_fill_random(a, a_el, DType::bf16, 1, stream);
    device_fill_random(b, b_el, DType::bf16, 2, stream);
    CUDA_CHECK(cudaMemsetAsync(c1, 0, c_el * bytes, stream));
    CUDA_CHECK(cudaMemsetAsync(c2, 0, c_el * bytes, stream));
    grouped.run(g, DType::bf16, a, b, c1);
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < g.group_rows.size(); ++i) {
      const std::int64_t rows = g.group_rows[i], e = static_cast<std::int64_t>(i);
      if (rows > 0) {
        const auto* ab = static_cast<const char*>(a);
        const auto* bb = static_cast<const char*>(b);
        auto* cb = static_cast<char*>(c2);
        if (g.group_k)
          lt.run({g.m, g.n, rows, 1, true}, DType::bf16, ab + offset * g.m * bytes,
                 bb + offset * g.n * bytes, cb + e * g.m * g.n * bytes);
        else
          lt.run({rows, g.n, g.k, 1, false}, DType::bf16, ab + offset * g.k * bytes,
                 bb + e * g.k * g.n * bytes, cb + offset * g.n * bytes);
      }
      offset += rows;
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> x = to_host(c1, c_el), y = to_host(c2, c_el);
    double worst = 0, scale = 0;
    std::size_t written = 0;
    for (std::size_t i = 0; i < c_el; ++i) {
      worst = std::max(worst, static_cast<double>(std::fabs(x[i] - y[i])));
      scale = std::max(scale, static_cast<double>(std::fabs(y[i])));
      written += y[i] != 0;
    }
    EXPECT_GT(written, c_el / 4) << g.label << ": the per-group GEMMs wrote almost nothing";
    EXPECT_LE(worst, 1e-2 * scale + 1e-3) << g.label;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c1);
    cudaFree(c2);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GroupedGemm, WritesWhatAGemmPerGroupWrites) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  // Odd rows, an empty group, a group past the mean: forward (groups split M) and the weight
  // gradient (groups split K).
  check_against_per_group(grouped_gemm({37, 0, 200, 64}, 0, 96, 128, false, "fwd"));
  check_against_per_group(grouped_gemm({37, 0, 200, 64}, 96, 128, 0, true, "wgrad"));
}

double time_op(ComputeEngine& engine, const ComputeOp& op, double scale, int reps) {
  engine.issue(op, scale, {});
  auto start = engine.record();
  for (int i = 0; i < reps; ++i) engine.issue(op, scale, {});
  auto stop = engine.record();
  stop->synchronize();
  return stop->elapsed_ms_since(*start) / reps;
}

TEST(GroupedGemm, Qwen3MoeExpertSliceRunsItsFlops) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  WorkloadRequest q;
  q.model = test::hf_folder("Qwen3-30B-A3B");
  q.world = 1;
  q.gpus_per_node = 1;
  q.plan = "fsdp2";
  q.layers = 1;
  q.micro_batch = 2;
  q.seq = 2048;
  q.experts = "grouped";
  const Schedule s = build_schedule(q);
  std::vector<GemmShape> grouped;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const GemmShape& g : op.compute().gemms)
        if (!g.group_rows.empty()) grouped.push_back(g);
  ASSERT_GE(grouped.size(), 6u);
  auto engine = make_cublas_engine(my_device());
  engine->reserve(grouped, DType::bf16);
  std::cout << "[ engine ] " << engine->description() << "\n";
  for (const GemmShape& g : grouped) {
    // Every routed row (2 x 2048 tokens x top-8) in the groups, each counted once.
    ASSERT_EQ(grouped_rows_total(g), 2 * 2048 * 8) << g.label;
    const double flops = gemm_shape_flops(g);
    const double fixed = static_cast<double>(g.group_k ? g.m : g.k);
    EXPECT_DOUBLE_EQ(flops, 2.0 * 2 * 2048 * 8 * g.n * fixed) << g.label;
    const ComputeOp op{DType::bf16, {g}, {}, 0};
    const double ms = time_op(*engine, op, 1.0, 20);
    const double rate = flops / (ms * 1e-3) / 1e12;
    std::printf("[ grouped ] %-52s %4lld groups  %8.3f ms  %6.1f TFLOP/s\n", g.label.c_str(),
                static_cast<long long>(g.batch), ms, rate);
    EXPECT_GT(rate, 20.0) << g.label;    // 128 small GEMMs: well below a dense GEMM, not idle
    EXPECT_LT(rate, 2500.0) << g.label;  // above any H100/H200 peak: groups were skipped
  }
  const ComputeOp first{DType::bf16, {grouped.front()}, {}, 0};
  const double one = time_op(*engine, first, 1.0, 10);
  const double two_and_half = time_op(*engine, first, 2.5, 10);
  EXPECT_NEAR(two_and_half / one, 2.5, 0.4);
}

}  // namespace
}  // namespace collreplay
