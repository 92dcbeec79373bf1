// Host-only build: this folder's NCCL backend is not compiled (see Makefile), so its entry points
// report that instead.
#include "collectives/backend.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "common/errors.hpp"

namespace collreplay {

bool nccl_backend_built() { return false; }

int cuda_visible_gpu_count() { return 0; }

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm, const BackendOptions&) {
  throw UsageError("this build has no NCCL backend (built without CUDA/NCCL); use --backend mpi");
}

}  // namespace collreplay
