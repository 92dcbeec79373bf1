// The host compute engine: OpenBLAS sgemm of the schedule's shapes (fp32 whatever the schedule's
// dtype: host BLAS has no fast bf16) on one worker thread, so the main thread stays free to
// progress MPI while compute runs. Batched GEMMs run as a loop.
#pragma once
#include <memory>

#include "bench/compute/compute_engine.hpp"

namespace collreplay {

// `threads`: OpenBLAS threads per GEMM (openblas_set_num_threads), >= 1.
std::unique_ptr<ComputeEngine> make_blas_engine(int threads);

}  // namespace collreplay
