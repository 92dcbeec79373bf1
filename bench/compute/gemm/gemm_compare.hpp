// The engine's GEMMs against plain cuBLAS on the same GPU, the same shapes and the same random
// operands: the compute engine (tuned cuBLASLt), cublasGemmEx with its default algorithm, and
// cuBLASLt's first heuristic choice. Methods are timed in interleaved rounds (each round runs
// every shape with every method, the method order rotating), so clock and temperature drift
// under a long power-limited run falls on all three alike instead of on whichever ran last.
// CUDA builds: cuda/gemm_compare.cpp; elsewhere it throws UsageError.
#pragma once
#include <vector>

#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct GemmComparison {
  GemmShape shape;
  double engine_tflops = 0;        // median over rounds
  double gemm_ex_tflops = 0;       // cublasGemmEx, CUBLAS_GEMM_DEFAULT
  double lt_heuristic_tflops = 0;  // cublasLtMatmul, heuristic's first algorithm
  double best_plain_tflops() const {
    return gemm_ex_tflops > lt_heuristic_tflops ? gemm_ex_tflops : lt_heuristic_tflops;
  }
  double ratio() const { return best_plain_tflops() > 0 ? engine_tflops / best_plain_tflops() : 0; }
};

struct GemmCompareOptions {
  int device = 0;
  DType dtype = DType::bf16;
  int iterations = 20;  // GEMMs back to back per timing
  int rounds = 5;
};

std::vector<GemmComparison> compare_gemms(const std::vector<GemmShape>& shapes,
                                          const GemmCompareOptions& options);

}  // namespace collreplay
