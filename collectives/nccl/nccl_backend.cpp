#include "collectives/nccl/nccl_backend.hpp"

#include <cuda_runtime_api.h>

#include "collectives/nccl/nccl_communicator.hpp"

namespace collreplay {

int cuda_visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls report their own
    return 0;
  }
  return count;
}

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm world,
                                                     const BackendOptions& options) {
  return NcclCommunicator::create(world, options);
}

}  // namespace collreplay
