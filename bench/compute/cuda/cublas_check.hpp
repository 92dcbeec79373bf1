// CUBLAS_CHECK(call): evaluates `call` once (cuBLAS or cuBLASLt, both return cublasStatus_t);
// on failure throws RuntimeError with file:line and cuBLAS's message. CUDA builds only.
#pragma once
#include <cublas_api.h>

#include <string>

#include "common/errors.hpp"

namespace collreplay {

inline void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw RuntimeError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                     " failed: " + cublasGetStatusString(status));
}

}  // namespace collreplay

#define CUBLAS_CHECK(call) ::collreplay::cublas_check((call), #call, __FILE__, __LINE__)
