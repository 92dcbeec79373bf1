// Who this rank is on its host: the host name every record and error line carries, the rank's
// index among the ranks of its host, and the GPU that index drives. One rule for every backend,
// engine and probe, so a rank's collectives and its GEMMs run on the same GPU.
#pragma once
#include <mpi.h>

#include <string>

namespace collreplay {

// This host's name, "?" when the system does not say.
std::string host_name();

// This rank's index among the ranks of `comm` that share its host (collective over `comm`).
int local_rank(MPI_Comm comm);

// The GPU a rank drives: its local rank modulo the GPUs visible to it, -1 when none is.
constexpr int gpu_for_local_rank(int local_rank, int visible_gpus) {
  return visible_gpus > 0 ? local_rank % visible_gpus : -1;
}

}  // namespace collreplay
