#include "bench/replay/flops/peak.hpp"

#include <mpi.h>

#include "bench/compute/gemm/gemm_probe.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"

namespace collreplay {

Peak choose_peak(const std::optional<double>& given, const RunSetup& setup, ComputeEngine& engine,
                 double timeout_s) {
  if (given) return {given, "--peak-tflops"};
  if (setup.compute_model)
    return {setup.compute_model->gpu.bf16_dense_tflops,
            "modeled " + std::string(setup.compute_model->gpu.name) + " bf16 dense"};
  if (engine.enqueues_on_device()) return device_peak(engine.device_name());
  // One rank of a node at a time: ranks probing together share the cores and see a fraction.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const GemmProbe probe = probe_gemm_rank_by_rank(engine, node, 1024, 3);
  MPI_Comm_free(&node);
  return {max_across_ranks(MPI_COMM_WORLD, probe.tflops, timeout_s),
          "measured sgemm 1024^3, one rank per node at a time, fastest rank"};
}

}  // namespace collreplay
