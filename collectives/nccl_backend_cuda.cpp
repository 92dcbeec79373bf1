// TEMPORARY stub so the collectives branch links in CUDA builds; the NCCL backend's real
// nccl_backend_cuda.cpp replaces this file when the branches merge.
#include <cuda_runtime.h>

#include "collectives/nccl_backend.hpp"
#include "common/errors.hpp"

namespace collreplay {

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm, const BackendOptions&) {
  throw RuntimeError("NCCL backend not yet implemented");
}

int cuda_visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

}  // namespace collreplay
