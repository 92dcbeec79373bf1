// Choosing and building a backend. The NCCL backend exists only in builds with CUDA and NCCL;
// in a host-only build make_communicator(nccl) throws UsageError saying so.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <mpi.h>

#include "collectives/communicator.hpp"
#include "collectives/transport/transport_select.hpp"

namespace collreplay {

// Number of CUDA devices this process can see; 0 in a host-only build or without a driver.
int visible_gpu_count();

// True when this build contains the NCCL backend.
bool nccl_backend_built();

BackendKind parse_backend(std::string_view text);  // "nccl" | "mpi", else UsageError
std::string_view backend_name(BackendKind kind);

// How timeouts and errors name one call of a collective: "all_gather of 32 MiB per rank
// (8388608 x fp32)"; `op` is the backend's name for it ("all_gather", "ncclAllGather").
std::string describe_collective_call(std::string_view op, std::size_t count, DType t);

// nccl when a GPU is visible, else mpi.
BackendKind default_backend();

// Throws UsageError when `kind` cannot run here (nccl in a host-only build or without a visible
// GPU). Safe before MPI_Init, so executables can reject the choice before any communicator.
void require_backend_available(BackendKind kind);

struct BackendOptions {
  double timeout_seconds = 0;  // 0: no watchdog
  // For the MPI backend: pass device buffers to MPI when the library is CUDA-aware.
  bool mpi_device_buffers = false;
  // NCCL: the transport asked for; its settings are applied before NCCL starts, once the node
  // count is known (the MPI settings must be applied before MPI_Init, by the caller).
  TransportRequest transport;
  // NCCL: > 0 cuts the ranks into this many emulated nodes (collectives/transport/emulated_nodes).
  int emulate_nodes = 0;
  // NCCL: allocate buffers with ncclMemAlloc and register them (nccl-tests' -R 1).
  bool register_buffers = false;
};

// Collective over `world` (every rank calls it). The NCCL backend picks the GPU by local rank
// (MPI_Comm_split_type SHARED) and throws UsageError when a node has more ranks than GPUs.
std::unique_ptr<Communicator> make_communicator(BackendKind kind, MPI_Comm world,
                                                const BackendOptions& options);

}  // namespace collreplay
