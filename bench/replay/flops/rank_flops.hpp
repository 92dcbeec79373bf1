// Every rank's step FLOPs, on every rank: TFLOP/s and MFU per GPU average over them where the
// ranks' work differs (a pipeline's stages, a trace per rank; mean_step_flops).
#pragma once
#include <mpi.h>

#include <vector>

#include "bench/replay/flops/step_flops.hpp"

namespace collreplay {

// Collective over `comm`, under the watchdog (TimeoutError after timeout_s; 0: wait for ever).
std::vector<StepFlops> all_ranks_flops(MPI_Comm comm, const StepFlops& mine, double timeout_s);

}  // namespace collreplay
