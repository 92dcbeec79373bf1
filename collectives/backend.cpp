#include "collectives/backend.hpp"

#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/nccl/nccl_backend.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {

int visible_gpu_count() { return cuda_visible_gpu_count(); }

std::string describe_collective_call(std::string_view op, std::size_t count, DType t) {
  return std::string(op) + " of " + format_bytes(count * dtype_size_bytes(t)) + " per rank (" +
         std::to_string(count) + " x " + std::string(dtype_name(t)) + ")";
}

BackendKind parse_backend(std::string_view text) {
  if (text == "nccl") return BackendKind::nccl;
  if (text == "mpi") return BackendKind::mpi;
  throw UsageError("unknown backend '" + std::string(text) + "' (expected nccl or mpi)");
}

std::string_view backend_name(BackendKind kind) {
  return kind == BackendKind::nccl ? "nccl" : "mpi";
}

BackendKind default_backend() {
  return nccl_backend_built() && visible_gpu_count() > 0 ? BackendKind::nccl : BackendKind::mpi;
}

void require_backend_available(BackendKind kind) {
  if (kind != BackendKind::nccl) return;
  if (!nccl_backend_built())
    throw UsageError("--backend nccl: this build has no NCCL backend (built without CUDA/NCCL)");
  if (visible_gpu_count() == 0)
    throw UsageError(
        "--backend nccl needs a GPU, and this machine has none visible "
        "(use --backend mpi)");
}

std::unique_ptr<Communicator> make_communicator(BackendKind kind, MPI_Comm world,
                                                const BackendOptions& options) {
  require_backend_available(kind);
  if (kind == BackendKind::nccl) return make_nccl_communicator(world, options);
  return std::make_unique<MpiCommunicator>(world, options);
}

}  // namespace collreplay
