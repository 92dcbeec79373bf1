#include "bench/compute/cuda/lt_gemm.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "bench/compute/cuda/cublas_check.hpp"
#include "bench/compute/cuda/cuda_data_type.hpp"
#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

// Tuning times each of the heuristic's top candidates in short bursts, several rounds apart, and
// keeps each candidate's best burst: a single burst per candidate let clock drift under the power
// limit pick a slower algorithm for some shapes (0.95x of cublasGemmEx on 2048x29568x8192).
// Bursts last at least kTuneBurstMs, so short GEMMs (tens of microseconds) are not judged on a
// burst shorter than the timer's noise; a candidate replaces the heuristic's first choice only
// when it is faster by more than kTuneMargin, as a tie is more often noise than a better kernel.
constexpr int kCandidates = 16;
constexpr int kTuneWarmups = 2;
constexpr int kTuneMinRuns = 5;
constexpr int kTuneMaxRuns = 200;
constexpr float kTuneBurstMs = 2.0f;
constexpr int kTuneRounds = 3;
constexpr float kTuneMargin = 0.02f;


// fp32 operands use TF32 tensor cores: the fp32 "GEMM at cuBLAS peak" a training step would see.
cublasComputeType_t compute_type(DType t) {
  return t == DType::f32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

cublasLtMatrixLayout_t make_layout(DType t, std::int64_t rows, std::int64_t cols,
                                   std::int64_t batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, cuda_data_type(t), static_cast<std::uint64_t>(rows),
                                          static_cast<std::uint64_t>(cols), rows));
  if (batch > 1) {
    const std::int32_t count = static_cast<std::int32_t>(batch);
    const std::int64_t stride = rows * cols;
    CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                  &count, sizeof count));
    CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
        layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return layout;
}

}  // namespace

// Column-major view: first = B (n x k), second = A (k x m), out = C (n x m); with A transposed,
// second is A as stored, (m x k) with leading dimension m, and cuBLASLt transposes it.
struct LtGemm::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> candidates;
  cublasLtMatmulAlgo_t algo{};
  bool tuned = false;
  ~Plan() {
    if (out) cublasLtMatrixLayoutDestroy(out);
    if (second) cublasLtMatrixLayoutDestroy(second);
    if (first) cublasLtMatrixLayoutDestroy(first);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

LtGemm::LtGemm(int device, cudaStream_t stream) : stream_(stream) {
  CUDA_CHECK(cudaSetDevice(device));
  CUBLAS_CHECK(cublasLtCreate(&handle_));
  CUDA_CHECK(cudaMalloc(&workspace_, kWorkspaceBytes));
}

LtGemm::~LtGemm() {
  plans_.clear();
  cudaFree(workspace_);
  if (handle_) cublasLtDestroy(handle_);
}

LtGemm::Plan& LtGemm::plan_for(const GemmDims& d, DType t) {
  const auto key = std::pair(d.key(), static_cast<int>(t));
  auto found = plans_.find(key);
  if (found != plans_.end()) return *found->second;
  if (d.m <= 0 || d.n <= 0 || d.k <= 0 || d.batch <= 0)
    throw UsageError("GEMM shape " + std::to_string(d.m) + "x" + std::to_string(d.n) + "x" +
                     std::to_string(d.k) + " (batch " + std::to_string(d.batch) +
                     ") has a non-positive dimension");
  auto plan = std::make_unique<Plan>();
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->op, compute_type(t), CUDA_R_32F));
  if (d.a_transposed) {
    const cublasOperation_t transposed = CUBLAS_OP_T;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_TRANSB, &transposed,
                                                sizeof transposed));
  }
  plan->first = make_layout(t, d.n, d.k, d.batch);
  plan->second = d.a_transposed ? make_layout(t, d.m, d.k, d.batch)
                                 : make_layout(t, d.k, d.m, d.batch);
  plan->out = make_layout(t, d.n, d.m, d.batch);
  cublasLtMatmulPreference_t preference = nullptr;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
  const std::uint64_t workspace = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                       &workspace, sizeof workspace);
  plan->candidates.resize(kCandidates);
  int found_count = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle_, plan->op, plan->first, plan->second, plan->out, plan->out, preference, kCandidates,
      plan->candidates.data(), &found_count);
  cublasLtMatmulPreferenceDestroy(preference);
  CUBLAS_CHECK(status);
  if (found_count <= 0)
    throw RuntimeError("cuBLASLt has no algorithm for GEMM " + std::to_string(d.m) + "x" +
                       std::to_string(d.n) + "x" + std::to_string(d.k));
  plan->candidates.resize(static_cast<std::size_t>(found_count));
  plan->algo = plan->candidates.front().algo;  // heuristic's first choice until tuned
  return *plans_.emplace(key, std::move(plan)).first->second;
}

void LtGemm::launch(Plan& plan, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b,
                    void* c) {
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasLtMatmul(handle_, plan.op, &alpha, b, plan.first, a, plan.second, &beta, c,
                              plan.out, c, plan.out, &algo, workspace_, kWorkspaceBytes, stream_));
}

void LtGemm::run(const GemmDims& d, DType t, const void* a, const void* b, void* c) {
  Plan& plan = plan_for(d, t);
  launch(plan, plan.algo, a, b, c);
}

void LtGemm::tune(const GemmDims& d, DType t, const void* a, const void* b, void* c) {
  Plan& plan = plan_for(d, t);
  if (plan.tuned) return;
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  // Runs per burst, from one timed launch of the heuristic's first choice.
  for (int w = 0; w < kTuneWarmups; ++w) launch(plan, plan.algo, a, b, c);
  CUDA_CHECK(cudaEventRecord(start, stream_));
  launch(plan, plan.algo, a, b, c);
  CUDA_CHECK(cudaEventRecord(stop, stream_));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float one_ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&one_ms, start, stop));
  const int runs = std::clamp(static_cast<int>(kTuneBurstMs / std::max(one_ms, 1e-3f)) + 1,
                              kTuneMinRuns, kTuneMaxRuns);
  std::vector<float> best_ms(plan.candidates.size(), std::numeric_limits<float>::max());
  for (int round = 0; round < kTuneRounds; ++round)
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
      const cublasLtMatmulHeuristicResult_t& candidate = plan.candidates[i];
      if (candidate.state != CUBLAS_STATUS_SUCCESS) continue;
      try {
        for (int w = 0; w < kTuneWarmups; ++w) launch(plan, candidate.algo, a, b, c);
        CUDA_CHECK(cudaEventRecord(start, stream_));
        for (int r = 0; r < runs; ++r) launch(plan, candidate.algo, a, b, c);
        CUDA_CHECK(cudaEventRecord(stop, stream_));
        CUDA_CHECK(cudaEventSynchronize(stop));
      } catch (const RuntimeError&) {
        continue;  // a candidate cuBLASLt proposed but cannot run here: skip it
      }
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      best_ms[i] = std::min(best_ms[i], ms);
    }
  const auto fastest = std::min_element(best_ms.begin(), best_ms.end());
  if (*fastest * (1 + kTuneMargin) < best_ms.front())
    plan.algo = plan.candidates[static_cast<std::size_t>(fastest - best_ms.begin())].algo;
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  plan.tuned = true;
}

}  // namespace collreplay
