// The GPU compute engine: cuBLAS(Lt) GEMMs on a compute stream of `device`. Built only with CUDA
// (compute_cublas_cuda.cpp); compute_cublas_nocuda.cpp throws UsageError.
#pragma once
#include <memory>

#include "bench/compute_engine.hpp"

namespace collreplay {

std::unique_ptr<ComputeEngine> make_cublas_engine(int device);

}  // namespace collreplay
