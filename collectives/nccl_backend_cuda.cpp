#include "collectives/nccl_backend.hpp"

#include <cuda_runtime_api.h>

#include "collectives/nccl_communicator_cuda.hpp"

namespace collreplay {

int cuda_visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later calls report their own
    return 0;
  }
  return count;
}

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm world, const BackendOptions& options) {
  return NcclCommunicator::create(world, options);
}

}  // namespace collreplay
