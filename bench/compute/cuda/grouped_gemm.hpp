// A grouped GEMM (GemmShape::group_rows, torch._grouped_mm over stacked experts) on the
// engine's stream, by one of three paths (gemm/grouped_tiles.hpp): torch's (the tiles of its
// grouped kernel as one batched cuBLASLt GEMM where it has that kernel, else a GEMM per group,
// as its fallback loops), one cublasGemmGroupedBatchedEx call with a problem per non-empty
// group (or the loop where this cuBLAS answers a probe for the dtype with
// CUBLAS_STATUS_NOT_SUPPORTED), or each group as its own cuBLASLt GEMM, one after another. Operands are packed one group after
// another in the engine's buffers as torch packs the sorted rows. path() says which.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench/compute/cuda/lt_gemm.hpp"
#include "bench/compute/gemm/grouped_tiles.hpp"
#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

class GroupedGemm {
 public:
  // `lt` runs the plain GEMMs; it must outlive this object. sm_major: the GPU's compute
  // capability, which decides whether torch has a grouped kernel there.
  GroupedGemm(cudaStream_t stream, LtGemm& lt, DType probe_dtype, GroupedGemmPath path,
              int sm_major);
  ~GroupedGemm();
  GroupedGemm(const GroupedGemm&) = delete;
  GroupedGemm& operator=(const GroupedGemm&) = delete;

  // Queues the grouped GEMM g on the stream over operands a, b, c (packed groups; the caller has
  // checked they hold m x k x batch, k x n x batch and m x n x batch elements).
  void run(const GemmShape& g, DType t, const void* a, const void* b, void* c);
  // The plain GEMM that runs for g in dtype t (torch's path where its grouped kernel takes g),
  // for the engine to size its operands and tune; none where the groups run otherwise.
  std::optional<GemmShape> one_gemm(const GemmShape& g, DType t) const;
  // Plans made for other operand buffers are dropped (the engine reallocated them).
  void forget_plans();
  // How grouped GEMMs run here, in words ("torch's grouped kernel's tiles ...", ...).
  const std::string& path() const { return path_; }

 private:
  struct Plan;
  Plan& plan_for(const GemmShape& g, DType t, const void* a, const void* b, void* c);
  void run_loop(const GemmShape& g, DType t, const void* a, const void* b, void* c);

  cudaStream_t stream_;
  LtGemm& lt_;
  cublasHandle_t handle_ = nullptr;
  GroupedGemmPath kind_;
  int sm_major_;
  bool grouped_call_ = false;
  std::string path_;
  using Key = std::tuple<std::vector<std::int64_t>, bool, std::int64_t, std::int64_t,
                         std::int64_t, int, const void*, const void*, void*>;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace collreplay
