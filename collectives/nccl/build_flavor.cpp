// Built only with CUDA and NCCL (this folder has a no_cuda.cpp; see Makefile).
#include "collectives/backend.hpp"

namespace collreplay {
bool nccl_backend_built() { return true; }
}  // namespace collreplay
