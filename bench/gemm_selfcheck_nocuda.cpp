#include "bench/gemm_selfcheck.hpp"

#include "common/errors.hpp"

namespace collreplay {

GemmCheckResult check_cublas_gemm(int, const GemmShape&, DType) {
  throw UsageError("this build has no GPU compute engine");
}

}  // namespace collreplay
