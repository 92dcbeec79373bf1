// Checks the cuBLASLt GEMM path (layout mapping included) against a host reference: runs the
// engine's GEMM code on random operands and compares with an fp64 product. Used by the GPU
// tests; it lives beside the engine because it drives the engine's own cuBLASLt code.
// A grouped GEMM (GemmShape::group_rows) runs through the engine's cuBLAS grouped call (or its
// per-group loop; cuda/grouped_gemm.hpp) and each group is checked against its own product.
// CUDA builds: cuda/gemm_selfcheck.cpp; elsewhere it throws UsageError.
#pragma once
#include <string>

#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct GemmCheckResult {
  double max_abs_error = 0;      // max |C - reference|
  double max_abs_reference = 0;  // max |reference|
  std::string grouped_path;      // a grouped GEMM: how the engine ran it (GroupedGemm::path)
  double relative_error() const {
    return max_abs_reference > 0 ? max_abs_error / max_abs_reference : max_abs_error;
  }
};

GemmCheckResult check_cublas_gemm(int device, const GemmShape& shape, DType t);

}  // namespace collreplay
