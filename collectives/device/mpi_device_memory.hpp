// GPU memory for the MPI backend's CUDA-aware mode. Built from mpi_device_memory.cpp with
// CUDA, from this folder's no_cuda.cpp (every call throws UsageError) without.
#pragma once
#include <cstddef>
#include <string>

namespace collreplay {

// Makes GPU (local_rank % visible GPUs) current and returns its description.
std::string mpi_device_select(int local_rank);
void* mpi_device_alloc(std::size_t bytes);
void mpi_device_free(void* buffer);
// Copies between any mix of host and device pointers (cudaMemcpyDefault), synchronously.
void mpi_device_copy(void* dst, const void* src, std::size_t bytes);

// True when the MPI library says it can take CUDA device pointers (MPIX_Query_cuda_support).
bool mpi_is_cuda_aware();

}  // namespace collreplay
