// The NCCL backend's entry points, used by the dispatch in collectives/backend.cpp. Built from
// nccl_backend.cpp with CUDA+NCCL; no_cuda.cpp otherwise (0 GPUs, UsageError).
#pragma once
#include <memory>

#include <mpi.h>

#include "collectives/backend.hpp"
#include "collectives/communicator.hpp"

namespace collreplay {

// cudaGetDeviceCount, 0 on any error (no driver, no device) or in a host-only build.
int cuda_visible_gpu_count();

// Collective over `world`: one rank per GPU, picked by local rank.
std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm world, const BackendOptions& options);

}  // namespace collreplay
