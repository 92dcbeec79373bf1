#include <cuda_runtime.h>

#include <string>

#include "collectives/device/mpi_device_memory.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {
void cuda_or_throw(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw RuntimeError(std::string(what) + ": " + cudaGetErrorString(code));
}
}  // namespace

std::string mpi_device_select(int local_rank) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    throw UsageError("device buffers for the MPI backend need a GPU, and none is visible");
  const int device = local_rank % count;
  cuda_or_throw(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp prop{};
  cuda_or_throw(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return std::string(prop.name) + " (GPU " + std::to_string(device) + ", CUDA-aware MPI)";
}

void* mpi_device_alloc(std::size_t bytes) {
  void* buffer = nullptr;
  cuda_or_throw(cudaMalloc(&buffer, bytes), "cudaMalloc");
  return buffer;
}

void mpi_device_free(void* buffer) { cudaFree(buffer); }

void mpi_device_copy(void* dst, const void* src, std::size_t bytes) {
  cuda_or_throw(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

}  // namespace collreplay
