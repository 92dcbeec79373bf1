#include "bench/preflight/preflight_main.hpp"

#include <CLI/CLI.hpp>
#include <memory>

#include "bench/app/guarded_main.hpp"
#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/preflight/preflight.hpp"
#include "collectives/backend.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {

void add_preflight_options(CLI::App& app, PreflightCommand& c) {
  app.add_option("--backend", c.backend,
                 "nccl|mpi: GEMM with cuBLAS on the rank's GPU or "
                 "OpenBLAS on host (default: nccl when a GPU is visible)");
  app.add_option("--slow-threshold", c.slow_threshold,
                 "name ranks whose GEMM is slower than the median by more than this fraction");
  app.add_flag("--strict", c.strict, "problems are errors (exit 6), not warnings");
  app.add_option("--compute-threads", c.compute_threads, "host BLAS threads per rank");
  app.add_option("--json", c.json_path, "write the report as JSON to this file");
}

int run_preflight_command(const PreflightCommand& c) {
  // Checked before MPI starts, so every rank refuses alike with one line, as the run flags are.
  if (!(c.slow_threshold >= 0)) throw UsageError("--slow-threshold must be >= 0");
  if (c.compute_threads < 1) throw UsageError("--compute-threads must be >= 1");
  const BackendKind backend = c.backend.empty() ? default_backend() : parse_backend(c.backend);
  require_backend_available(backend);
  MpiSession mpi(nullptr, nullptr);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The communicator places each rank on its GPU (and checks ranks per node against GPUs).
  BackendOptions options;
  options.timeout_seconds = 300;
  const std::unique_ptr<Communicator> comm = make_communicator(backend, MPI_COMM_WORLD, options);
  const std::unique_ptr<ComputeEngine> engine =
      comm->device_buffers()
          ? make_cublas_engine(gpu_for_local_rank(local_rank(MPI_COMM_WORLD), visible_gpu_count()))
          : make_blas_engine(c.compute_threads);
  const PreflightReport report = run_preflight(MPI_COMM_WORLD, *engine, comm->device_description(),
                                               {c.slow_threshold, c.strict});
  if (rank == 0 && !c.json_path.empty())
    write_file_atomically(c.json_path, report.json.dump(2) + '\n');
  return kExitOk;
}

}  // namespace collreplay
