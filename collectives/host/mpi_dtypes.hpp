// How collective buffers are described to MPI. MPI counts are `int`, so a buffer of more than
// INT_MAX elements is sent as `count` blocks of a contiguous derived type; sums over bf16/fp16
// (which MPI does not know) and over blocks use user-defined ops that add in float.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <map>
#include <utility>

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
  // The sum op for items of `type` holding elements of `t` (MPI_SUM where MPI can do it).
  MPI_Op sum_op(DType t, MPI_Datatype type);

 private:
  std::map<std::pair<DType, std::size_t>, MPI_Datatype> blocks_;
  std::map<DType, MPI_Op> sums_;
};

// The predefined MPI type that carries one element of `t` (bf16/fp16 travel as 16-bit words).
MPI_Datatype mpi_element_type(DType t);

}  // namespace collreplay
