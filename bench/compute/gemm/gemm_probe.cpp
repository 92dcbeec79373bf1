#include "bench/compute/gemm/gemm_probe.hpp"

#include <chrono>
#include <thread>
#include <vector>

#include "bench/app/stats.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "workloads/model/gemm_slices.hpp"

namespace collreplay {

GemmProbe probe_gemm(ComputeEngine& engine, int n, int repetitions) {
  GemmProbe probe;
  probe.n = n > 0 ? n : (engine.enqueues_on_device() ? 8192 : 1024);
  ComputeOp op;
  op.dtype = DType::bf16;
  op.gemms.push_back({probe.n, probe.n, probe.n, 1, "probe"});
  engine.reserve(op.gemms, op.dtype);
  engine.issue(op, 1.0, {});  // warm-up: library heuristics, page faults, clocks
  engine.synchronize();
  // A GPU runs one GEMM at boost clock (8192^3: ~795 TFLOP/s on an H100) but a training step's
  // GEMMs back to back at its power limit (~735): time bursts, as a step would see them, so a rank
  // whose power or cooling cannot sustain the clock shows up. A host core has no such drop.
  const int burst = engine.enqueues_on_device() ? 20 : 1;
  std::vector<double> times_ms;
  for (int rep = 0; rep < repetitions; ++rep) {
    auto before = engine.record();
    for (int i = 0; i < burst; ++i) engine.issue(op, 1.0, {});
    auto after = engine.record();
    after->synchronize();
    times_ms.push_back(after->elapsed_ms_since(*before) / burst);
  }
  probe.median_ms = median(times_ms);
  probe.flops = gemm_flops(op.gemms);
  probe.tflops = probe.median_ms > 0 ? probe.flops / (probe.median_ms * 1e9) : 0;
  return probe;
}

namespace {

void sleepy_barrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_CHECK(MPI_Ibarrier(comm, &request));
  for (int done = 0;;) {
    MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

GemmProbe probe_gemm_rank_by_rank(ComputeEngine& engine, MPI_Comm comm, int n, int repetitions) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  GemmProbe mine;
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) mine = probe_gemm(engine, n, repetitions);
    sleepy_barrier(comm);
  }
  return mine;
}

}  // namespace collreplay
