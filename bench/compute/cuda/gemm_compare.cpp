#include "bench/compute/gemm/gemm_compare.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <functional>

#include "bench/app/stats.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/cuda/cublas_check.hpp"
#include "bench/compute/cuda/cuda_data_type.hpp"
#include "bench/compute/cuda/lt_gemm.hpp"
#include "bench/compute/cuda/random_fill.hpp"
#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {


// One operand set for the two plain paths, filled with the engine's seeds so all three methods
// multiply the same numbers.
struct Operands {
  void *a = nullptr, *b = nullptr, *c = nullptr;
  Operands(std::size_t a_elems, std::size_t b_elems, std::size_t c_elems, DType t,
           cudaStream_t stream) {
    const std::size_t bytes = dtype_size_bytes(t);
    CUDA_CHECK(cudaMalloc(&a, a_elems * bytes));
    CUDA_CHECK(cudaMalloc(&b, b_elems * bytes));
    CUDA_CHECK(cudaMalloc(&c, c_elems * bytes));
    device_fill_random(a, a_elems, t, 1, stream);
    device_fill_random(b, b_elems, t, 2, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~Operands() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

// Row-major C[m x n] = A[m x k] B[k x n] as column-major C^T = B^T A^T: the layout torch.matmul
// hands cuBLAS, and the one the engine uses (A stored [k x m] and transposed when a_transposed).
void gemm_ex(cublasHandle_t handle, const GemmShape& s, DType t, const Operands& o) {
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType_t type = cuda_data_type(t);
  const cublasComputeType_t compute =
      t == DType::f32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const cublasOperation_t op_a = s.a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = static_cast<int>(s.a_transposed ? s.m : s.k);
  if (s.batch == 1) {
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, op_a, static_cast<int>(s.n),
                              static_cast<int>(s.m), static_cast<int>(s.k), &alpha, o.b, type,
                              static_cast<int>(s.n), o.a, type, lda, &beta, o.c, type,
                              static_cast<int>(s.n), compute, CUBLAS_GEMM_DEFAULT));
    return;
  }
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      handle, CUBLAS_OP_N, op_a, static_cast<int>(s.n), static_cast<int>(s.m),
      static_cast<int>(s.k), &alpha, o.b, type, static_cast<int>(s.n), s.k * s.n, o.a, type, lda,
      s.m * s.k, &beta, o.c, type, static_cast<int>(s.n), s.m * s.n, static_cast<int>(s.batch),
      compute, CUBLAS_GEMM_DEFAULT));
}

double median_tflops(const GemmShape& s, int iterations, std::vector<double>& times_ms) {
  const double flops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) *
                       static_cast<double>(s.k) * static_cast<double>(s.batch) * iterations;
  const double ms = median(times_ms);
  return ms > 0 ? flops / (ms * 1e9) : 0;
}

}  // namespace

std::vector<GemmComparison> compare_gemms(const std::vector<GemmShape>& shapes,
                                          const GemmCompareOptions& options) {
  if (shapes.empty()) throw UsageError("no GEMM shapes to compare");
  if (options.iterations < 1 || options.rounds < 1)
    throw UsageError("--iters and --rounds must be at least 1");
  CUDA_CHECK(cudaSetDevice(options.device));
  auto engine = make_cublas_engine(options.device);
  engine->reserve(shapes, options.dtype);

  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::size_t a = 0, b = 0, c = 0;
  for (const GemmShape& s : shapes) {
    a = std::max<std::size_t>(a, s.m * s.k * s.batch);
    b = std::max<std::size_t>(b, s.k * s.n * s.batch);
    c = std::max<std::size_t>(c, s.m * s.n * s.batch);
  }
  Operands operands(a, b, c, options.dtype, stream);
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  // cublasGemmEx gets the same workspace the engine has, so neither is starved.
  void* workspace = nullptr;
  CUDA_CHECK(cudaMalloc(&workspace, LtGemm::kWorkspaceBytes));
  CUBLAS_CHECK(cublasSetWorkspace(handle, workspace, LtGemm::kWorkspaceBytes));
  LtGemm heuristic(options.device, stream);  // untuned: the heuristic's first choice

  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  // Times `iterations` back-to-back launches on `on` (the engine has its own stream).
  auto timed = [&](cudaStream_t on, const std::function<void()>& launch) {
    for (int i = 0; i < 2; ++i) launch();  // warm-up: plans, caches, clocks
    CUDA_CHECK(cudaEventRecord(start, on));
    for (int i = 0; i < options.iterations; ++i) launch();
    CUDA_CHECK(cudaEventRecord(stop, on));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms);
  };

  std::vector<std::array<std::vector<double>, 3>> times(shapes.size());
  for (int round = 0; round < options.rounds; ++round)
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const GemmShape& s = shapes[i];
      ComputeOp op;
      op.dtype = options.dtype;
      op.gemms = {s};
      const GemmDims dims = dims_of(s);
      for (int turn = 0; turn < 3; ++turn) {
        const int method = (turn + round + static_cast<int>(i)) % 3;
        if (method == 0) {
          // The engine queues on its own stream; time it with its own events.
          for (int w = 0; w < 2; ++w) engine->issue(op, 1.0, {});
          auto before = engine->record();
          for (int it = 0; it < options.iterations; ++it) engine->issue(op, 1.0, {});
          auto after = engine->record();
          after->synchronize();
          times[i][0].push_back(after->elapsed_ms_since(*before));
        } else if (method == 1) {
          times[i][1].push_back(
              timed(stream, [&] { gemm_ex(handle, s, options.dtype, operands); }));
        } else {
          times[i][2].push_back(timed(stream, [&] {
            heuristic.run(dims, options.dtype, operands.a, operands.b, operands.c);
          }));
        }
      }
    }

  std::vector<GemmComparison> results;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    GemmComparison r;
    r.shape = shapes[i];
    r.engine_tflops = median_tflops(shapes[i], options.iterations, times[i][0]);
    r.gemm_ex_tflops = median_tflops(shapes[i], options.iterations, times[i][1]);
    r.lt_heuristic_tflops = median_tflops(shapes[i], options.iterations, times[i][2]);
    results.push_back(r);
  }
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cublasDestroy(handle);
  cudaFree(workspace);
  cudaStreamDestroy(stream);
  return results;
}

}  // namespace collreplay
