// Row-major GEMMs C[m x n] = A[m x k] * B[k x n] (strided-batched) through cuBLASLt, with fp32
// accumulation on tensor cores. Row-major C = A*B is column-major C^T = B^T * A^T, so the
// column-major call takes B's buffer as its first operand and A's as its second, no transposes:
// the same layout torch.matmul hands cuBLAS for contiguous row-major tensors. One plan (descriptors
// and algorithm) per shape, cached; tune() times cuBLASLt's best candidates and keeps the fastest.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct GemmDims {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool a_transposed = false;  // A stored [k x m], read transposed (GemmShape::a_transposed)
  auto key() const { return std::tuple(m, n, k, batch, a_transposed); }
};

// A schedule's GEMM as cuBLASLt runs it: every field that shapes the call, layout included.
inline GemmDims dims_of(const GemmShape& s) { return {s.m, s.n, s.k, s.batch, s.a_transposed}; }

class LtGemm {
 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;

  LtGemm(int device, cudaStream_t stream);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Queues one GEMM (all batches) on the stream.
  void run(const GemmDims& d, DType t, const void* a, const void* b, void* c);
  // Picks the fastest of cuBLASLt's top candidates for this shape by timing them on these
  // operands (synchronous: call before anything is timed).
  void tune(const GemmDims& d, DType t, const void* a, const void* b, void* c);

 private:
  struct Plan;
  Plan& plan_for(const GemmDims& d, DType t);
  void launch(Plan& plan, const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* c);

  cudaStream_t stream_;
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  std::map<std::pair<decltype(GemmDims{}.key()), int>, std::unique_ptr<Plan>> plans_;
};

}  // namespace collreplay
