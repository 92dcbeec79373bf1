// The seam between backend selection (backend.cpp, host code) and the NCCL backend, which exists
// only in CUDA builds: nccl_backend_cuda.cpp implements these with CUDA and NCCL,
// nccl_backend_nocuda.cpp says the build has no NCCL backend.
#pragma once
#include <mpi.h>

#include <memory>

#include "collectives/backend.hpp"

namespace collreplay {

// Collective over `world`; see make_communicator.
std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm world, const BackendOptions& options);

// CUDA devices visible to this process; 0 on any CUDA error (no driver, no device).
int cuda_visible_gpu_count();

}  // namespace collreplay
