#include "collectives/mpi_device_memory.hpp"

#include "common/errors.hpp"

namespace collreplay {
namespace {
[[noreturn]] void no_cuda() {
  throw UsageError("device buffers for the MPI backend need a build with CUDA");
}
}  // namespace

std::string mpi_device_select(int) { no_cuda(); }
void* mpi_device_alloc(std::size_t) { no_cuda(); }
void mpi_device_free(void*) { no_cuda(); }
void mpi_device_copy(void*, const void*, std::size_t) { no_cuda(); }

}  // namespace collreplay
