// Chosen by file name (see Makefile): this build has CUDA and NCCL.
#include "collectives/backend.hpp"

namespace collreplay {
bool nccl_backend_built() { return true; }
}  // namespace collreplay
