// CUDA awareness is a property of the MPI library, not of this build, so it is asked at run
// time through the MPI extension where the library has one (OpenMPI's mpi-ext.h); libraries
// without the extension are treated as not CUDA-aware. This is the one place that needs #if:
// which extensions a library ships cannot be chosen by file name.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "collectives/device/mpi_device_memory.hpp"

namespace collreplay {

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace collreplay
