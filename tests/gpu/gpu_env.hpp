// Shared by the GPU tests: whether a GPU is visible, and this rank's GPU.
#pragma once
#include <mpi.h>

#include "collectives/nccl/nccl_backend.hpp"
#include "common/host_identity.hpp"

namespace collreplay::testing_gpu {

// Same answer on every rank of a host, so ranks skip together and no collective is left waiting.
inline bool have_gpu() { return cuda_visible_gpu_count() > 0; }

// The GPU the NCCL backend gives this rank: local rank modulo visible GPUs.
inline int my_device() {
  return gpu_for_local_rank(local_rank(MPI_COMM_WORLD), cuda_visible_gpu_count());
}

}  // namespace collreplay::testing_gpu
