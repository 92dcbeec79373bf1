// Host-only build: the cuBLAS engine of this folder is not compiled (see Makefile).
#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/gemm/gemm_compare.hpp"
#include "bench/compute/gemm/gemm_selfcheck.hpp"
#include "common/errors.hpp"

namespace collreplay {

std::unique_ptr<ComputeEngine> make_cublas_engine(int, GroupedGemmPath) {
  throw UsageError("this build has no GPU compute engine");
}

std::uint64_t device_free_bytes(int) { throw UsageError("this build has no GPU compute engine"); }

GemmCheckResult check_cublas_gemm(int, const GemmShape&, DType) {
  throw UsageError("this build has no GPU compute engine");
}

std::vector<GemmComparison> compare_gemms(const std::vector<GemmShape>&,
                                          const GemmCompareOptions&) {
  throw UsageError("this build has no GPU compute engine: gemm_perf needs CUDA");
}

}  // namespace collreplay
