// The GPU compute engine: cuBLAS(Lt) GEMMs on a compute stream of `device`. Built only with CUDA
// (cuda/compute_cublas.cpp); cuda/no_cuda.cpp throws UsageError.
#pragma once
#include <cstdint>
#include <memory>

#include "bench/compute/compute_engine.hpp"

namespace collreplay {

// grouped_loop: grouped GEMMs as a cuBLASLt GEMM per group even where cuBLAS's grouped call
// would take them (cuda/grouped_gemm.hpp; replay --grouped-gemm loop).
std::unique_ptr<ComputeEngine> make_cublas_engine(int device, bool grouped_loop = false);
// cudaMemGetInfo's free bytes on `device` (replay's memory check).
std::uint64_t device_free_bytes(int device);

}  // namespace collreplay
