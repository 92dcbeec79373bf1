// How collective buffers are described to MPI. MPI counts are `int`, so a buffer of more than
// INT_MAX elements is sent as `count` blocks of a contiguous derived type. Reductions use MPI's
// own ops on the types MPI knows (integers, float, double); on bf16, fp16 and fp8 (which MPI
// does not know) and on blocks they are user-defined ops over reduce_values
// (collectives/values/host_reduce.hpp).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <map>
#include <utility>

#include "collectives/reduce_op.hpp"
#include "common/dtype.hpp"

namespace collreplay {

// `count` items of `type` cover exactly the requested elements.
struct MpiSpan {
  MPI_Datatype type;
  int count;
};

// Owns the derived datatypes and ops it hands out; one per communicator.
class MpiTypeCache {
 public:
  MpiTypeCache() = default;
  ~MpiTypeCache();
  MpiTypeCache(const MpiTypeCache&) = delete;
  MpiTypeCache& operator=(const MpiTypeCache&) = delete;

  // Throws UsageError when `elements` has no block size that brings the count under INT_MAX.
  MpiSpan span(DType t, std::size_t elements);
  // The op reducing items of `type` holding elements of `t` with `op` (MPI_SUM, MPI_PROD, MPI_MIN,
  // MPI_MAX where MPI can do it). UsageError for avg: MPI has no average (the host backend's own
  // reductions average as NCCL does).
  MPI_Op reduce_op(DType t, ReduceOp op, MPI_Datatype type);

 private:
  std::map<std::pair<DType, std::size_t>, MPI_Datatype> blocks_;
  std::map<std::pair<DType, ReduceOp>, MPI_Op> ops_;
};

// The predefined MPI type that carries one element of `t`: the matching MPI type (MPI_INT8_T ...
// MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE); bf16/fp16 travel as 16-bit words, fp8 as bytes.
MPI_Datatype mpi_element_type(DType t);

}  // namespace collreplay
