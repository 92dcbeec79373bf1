// CUDA_CHECK(call): evaluates `call` once; on failure throws RuntimeError naming the call, the
// file:line and CUDA's own message. Only for files built with CUDA (folders with a no_cuda.cpp,
// *.cu).
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "common/errors.hpp"

namespace collreplay {

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw RuntimeError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                     " failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

}  // namespace collreplay

#define CUDA_CHECK(call) ::collreplay::cuda_check((call), #call, __FILE__, __LINE__)
