// A short square GEMM timed on a compute engine: preflight's per-rank speed test and, on host,
// the measured peak that MFU is relative to. Reserves the engine's operands for the square
// shape, so call it before an Executor reserves its own.
#pragma once
#include <mpi.h>

#include "bench/compute/compute_engine.hpp"

namespace collreplay {

struct GemmProbe {
  int n = 0;             // n x n x n
  double median_ms = 0;  // per GEMM, median over the timed repetitions (device: bursts of 20)
  double flops = 0;      // 2 n^3
  double tflops = 0;     // flops / median
};

// n: 8192 on a device engine (bf16, near cuBLAS peak), 1024 on host, unless given.
GemmProbe probe_gemm(ComputeEngine& engine, int n = 0, int repetitions = 5);

// probe_gemm on each rank of `comm` in turn (collective): host ranks of one node share its
// cores, so probing them all at once measures a fraction of the peak. Ranks waiting for their
// turn sleep between polls of a nonblocking barrier rather than spin on the prober's cores.
GemmProbe probe_gemm_rank_by_rank(ComputeEngine& engine, MPI_Comm comm, int n = 0,
                                  int repetitions = 5);

}  // namespace collreplay
