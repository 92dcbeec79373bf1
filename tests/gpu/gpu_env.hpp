// Shared by the GPU tests: whether a GPU is visible, and this rank's GPU.
#pragma once
#include <mpi.h>

#include "collectives/nccl/nccl_backend.hpp"

namespace collreplay::testing_gpu {

// Same answer on every rank of a host, so ranks skip together and no collective is left waiting.
inline bool have_gpu() { return cuda_visible_gpu_count() > 0; }

// The GPU the NCCL backend gives this rank: local rank modulo visible GPUs.
inline int my_device() {
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local % cuda_visible_gpu_count();
}

}  // namespace collreplay::testing_gpu
