// The GPU compute engine: cuBLAS(Lt) GEMMs on a compute stream of `device`. Built only with CUDA
// (cuda/compute_cublas.cpp); cuda/no_cuda.cpp throws UsageError.
#pragma once
#include <cstdint>
#include <memory>

#include "bench/compute/compute_engine.hpp"
#include "bench/compute/gemm/grouped_tiles.hpp"

namespace collreplay {

// grouped: how grouped GEMMs run (gemm/grouped_tiles.hpp; replay --grouped-gemm).
std::unique_ptr<ComputeEngine> make_cublas_engine(
    int device, GroupedGemmPath grouped = GroupedGemmPath::torch);
// cudaMemGetInfo's free bytes on `device` (replay's memory check).
std::uint64_t device_free_bytes(int device);

}  // namespace collreplay
