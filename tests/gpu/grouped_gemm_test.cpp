// Grouped GEMMs (--experts grouped, torch._grouped_mm's work): each group's output matches its
// own fp64 product, an empty group's stays zero; the grouped slices of an MoE layer
// (Qwen3-30B-A3B, Mixtral-8x7B) run at a rate a tensor-core GPU can reach for the FLOPs their
// groups hold (a call that skipped groups would run above peak), and the calibration stretch
// scales them.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <vector>

#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/gemm/gemm_selfcheck.hpp"
#include "engine_timing.hpp"
#include "gpu_env.hpp"
#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

using testing_gpu::time_op;
using testing_gpu::have_gpu;
using testing_gpu::my_device;

TEST(GroupedGemm, EachGroupMatchesItsOwnProduct) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  // Odd rows, an empty group, a group past the mean: forward and dgrad (groups split M) and the
  // weight gradient (groups split K, A read transposed).
  const std::vector<GemmShape> shapes = {
      grouped_gemm({37, 0, 200, 64}, 0, 96, 128, false, "fwd"),
      grouped_gemm({37, 0, 200, 64}, 96, 128, 0, true, "wgrad")};
  for (const GemmShape& s : shapes)
    for (DType t : {DType::bf16, DType::f16}) {
      const GemmCheckResult r = check_cublas_gemm(my_device(), s, t);
      std::cout << "[ grouped ] " << s.label << " " << dtype_name(t) << ": " << r.grouped_path
                << "\n";
      EXPECT_GT(r.max_abs_reference, 0) << s.label;
      EXPECT_LT(r.relative_error(), 1e-2)
          << s.label << " " << dtype_name(t) << " max abs error " << r.max_abs_error;
    }
}


// The grouped GEMMs of one MoE layer of a Hugging Face config (micro-batch 2 x 2048), each
// timed on every path (replay --grouped-gemm auto, cublas-grouped, loop) and printed beside
// its rate: every routed row counted once, a rate a tensor-core GPU can reach for the FLOPs its
// groups hold (a call that skipped groups would run above peak), and the calibration stretch.
void expect_grouped_slices_run_their_flops(const char* folder, std::int64_t top_k) {
  WorkloadRequest q;
  q.model = test::hf_folder(folder);
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
  const std::int64_t routed_rows = 2 * 2048 * top_k;
  for (GroupedGemmPath path :
       {GroupedGemmPath::torch, GroupedGemmPath::cublas_grouped, GroupedGemmPath::loop}) {
    auto engine = make_cublas_engine(my_device(), path);
    engine->reserve(grouped, DType::bf16);
    std::cout << "[ engine ] " << engine->description() << "\n";
    for (const GemmShape& g : grouped) {
      ASSERT_EQ(grouped_rows_total(g), routed_rows) << g.label;
      const double flops = gemm_shape_flops(g);
      const double fixed = static_cast<double>(g.group_k ? g.m : g.k);
      EXPECT_DOUBLE_EQ(flops, 2.0 * static_cast<double>(routed_rows) *
                                  static_cast<double>(g.n) * fixed)
          << g.label;
      const ComputeOp op{DType::bf16, {g}, {}, 0};
      const double ms = time_op(*engine, op, 1.0, 20);
      const double rate = flops / (ms * 1e-3) / 1e12;
      std::printf("[ grouped %s ] %-56s %4lld groups  %8.3f ms  %6.1f TFLOP/s\n",
                  grouped_gemm_path_word(path), g.label.c_str(), static_cast<long long>(g.batch),
                  ms, rate);
      EXPECT_GT(rate, 20.0) << g.label;    // small groups: well below a dense GEMM, not idle
      EXPECT_LT(rate, 2500.0) << g.label;  // above any H100/H200 peak: groups were skipped
    }
  }
  auto engine = make_cublas_engine(my_device());
  engine->reserve(grouped, DType::bf16);
  const ComputeOp first{DType::bf16, {grouped.front()}, {}, 0};
  const double one = time_op(*engine, first, 1.0, 10);
  const double two_and_half = time_op(*engine, first, 2.5, 10);
  EXPECT_NEAR(two_and_half / one, 2.5, 0.4);
}

TEST(GroupedGemm, Qwen3MoeExpertSliceRunsItsFlops) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  expect_grouped_slices_run_their_flops("Qwen3-30B-A3B", 8);  // 128 small groups
}

TEST(GroupedGemm, MixtralExpertSliceRunsItsFlops) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU visible";
  expect_grouped_slices_run_their_flops("Mixtral-8x7B-v0.1", 2);  // 8 large groups
}

}  // namespace
}  // namespace collreplay
