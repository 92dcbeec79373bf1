// A grouped GEMM (GemmShape::group_rows, torch._grouped_mm over stacked experts) on the
// engine's stream: one cublasGemmGroupedBatchedEx call with a problem per non-empty group, its
// operands packed one group after another in the engine's buffers as torch packs the sorted
// rows. Where this cuBLAS refuses the call for the dtype (it answers CUBLAS_STATUS_NOT_SUPPORTED
// to a probe at start), each group runs as its own cuBLASLt GEMM on the same stream, one after
// another: the loop a framework without a grouped kernel runs. path() says which.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench/compute/cuda/lt_gemm.hpp"
#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

class GroupedGemm {
 public:
  // `lt` runs the per-group loop; it must outlive this object. force_loop: the loop even where
  // the grouped call is supported (to time one against the other).
  GroupedGemm(cudaStream_t stream, LtGemm& lt, DType probe_dtype, bool force_loop = false);
  ~GroupedGemm();
  GroupedGemm(const GroupedGemm&) = delete;
  GroupedGemm& operator=(const GroupedGemm&) = delete;

  // Queues the grouped GEMM g on the stream over operands a, b, c (packed groups; the caller has
  // checked they hold m x k x batch, k x n x batch and m x n x batch elements).
  void run(const GemmShape& g, DType t, const void* a, const void* b, void* c);
  // Plans made for other operand buffers are dropped (the engine reallocated them).
  void forget_plans();
  // "cublasGemmGroupedBatchedEx" or "a loop of cuBLASLt GEMMs (...why...)".
  const std::string& path() const { return path_; }
  bool grouped_call() const { return grouped_call_; }

 private:
  struct Plan;
  Plan& plan_for(const GemmShape& g, DType t, const void* a, const void* b, void* c);
  void run_loop(const GemmShape& g, DType t, const void* a, const void* b, void* c);

  cudaStream_t stream_;
  LtGemm& lt_;
  cublasHandle_t handle_ = nullptr;
  bool grouped_call_ = false;
  std::string path_;
  using Key = std::tuple<std::vector<std::int64_t>, bool, std::int64_t, std::int64_t,
                         std::int64_t, int, const void*, const void*, void*>;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace collreplay
