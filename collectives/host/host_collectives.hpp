// The MPI backend's host all-gather, reduce-scatter and all-reduce, built from point-to-point
// messages posted all at once, so that every rank does the same work and an op needs no MPI
// progress between rounds (a waiting thread that backs off stalls multi-round schedules): each rank
// sends every peer the slice that peer owns and receives its own slice from every peer into a
// scratch buffer, adding each slice as it arrives (pairwise exchange; the bytes each rank moves are
// those of a ring, (p-1)/p of the buffer). The all-reduce follows with the same exchange of the
// reduced slices (an all-gather). OpenMPI's nonblocking reduce_scatter_block (libnbc) instead
// reduces everything on one rank, then scatters, with a fresh allocation per call: 10-50x slower
// than all-gather on 4 ranks. Scratch buffers are kept between calls, so steady-state calls
// allocate nothing. The all-gather is the same exchange without the sum: its own slice to every
// peer, theirs into place; the all-to-all, block j to rank j.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "collectives/host/host_memory.hpp"
#include "collectives/host/mpi_dtypes.hpp"
#include "collectives/mpi/mpi_request_queue.hpp"
#include "collectives/reduce_op.hpp"
#include "common/dtype.hpp"

namespace collreplay {

class HostCollectives {
 public:
  HostCollectives(MPI_Comm comm, MpiTypeCache& types, MpiRequestQueue& queue);

  // Host buffers only, NCCL's conventions (communicator.hpp). In-place: send is this rank's
  // slice of recv.
  void all_gather(const void* send, void* recv, std::size_t count, DType t,
                  std::string description);
  // Block j of send to rank j; in-place (send == recv) through a copy of the input.
  void all_to_all(const void* send, void* recv, std::size_t count, DType t,
                  std::string description);
  // `recv` may be send's slice of
  // this rank (in-place) or send itself (MPI's in-place form: the result at the start). The
  // reduction is reduce_values' (collectives/values/host_reduce.hpp); avg multiplies every
  // contribution first (floats) or divides the sum (integers), as NCCL does.
  void reduce_scatter(const void* send, void* recv, std::size_t count, DType t, ReduceOp op,
                      std::string description);
  // `recv` is `send` (in-place) or a buffer that does not overlap it.
  void all_reduce(const void* send, void* recv, std::size_t count, DType t, ReduceOp op,
                  std::string description);

 private:
  using Buffer = HostBuffer;
  // A scratch buffer of at least `bytes`, from the pool when one is idle.
  std::shared_ptr<Buffer> acquire(std::size_t bytes);
  // Posts the receive of `count` elements from `peer` (or the send to it) with `tag`.
  MPI_Request receive(void* buffer, std::size_t count, DType t, int peer, int tag);
  MPI_Request send(const void* buffer, std::size_t count, DType t, int peer, int tag);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  MpiTypeCache& types_;
  MpiRequestQueue& queue_;
  // Idle scratch buffers; shared with the ops in flight, which give theirs back when done.
  std::shared_ptr<std::vector<Buffer>> idle_ = std::make_shared<std::vector<Buffer>>();
};

}  // namespace collreplay
