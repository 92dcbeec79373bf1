#include <cuda_runtime.h>

#include <string>

#include "collectives/device/cuda_check.hpp"
#include "collectives/device/mpi_device_memory.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {

std::string mpi_device_select(int local_rank) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    throw UsageError("device buffers for the MPI backend need a GPU, and none is visible");
  const int device = gpu_for_local_rank(local_rank, count);
  CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return std::string(prop.name) + " (GPU " + std::to_string(device) + ", CUDA-aware MPI)";
}

void* mpi_device_alloc(std::size_t bytes) {
  void* buffer = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, bytes));
  return buffer;
}

void mpi_device_free(void* buffer) { cudaFree(buffer); }

void mpi_device_copy(void* dst, const void* src, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault));
}

}  // namespace collreplay
