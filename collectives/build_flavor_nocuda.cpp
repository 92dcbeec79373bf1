// Chosen by file name (see Makefile): host-only build.
#include "collectives/backend.hpp"

namespace collreplay {
bool nccl_backend_built() { return false; }
}  // namespace collreplay
