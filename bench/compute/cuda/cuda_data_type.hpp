// A GEMM operand's DType as cuBLAS names it (CUDA builds only).
#pragma once
#include <library_types.h>

#include "common/dtype.hpp"

namespace collreplay {

inline cudaDataType_t cuda_data_type(DType t) {
  switch (t) {
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
    case DType::f32: return CUDA_R_32F;
    default: break;  // fp8 and the integers are never GEMM dtypes (the schedule loader refuses them)
  }
  return CUDA_R_16BF;
}

}  // namespace collreplay
