// The collectives collreplay knows and nccl-tests' size rule, for everyone who sizes one: the op
// specs (collectives/ops/<op>.cpp), the replay's call preparation and the schedule builder and
// reader in workloads/. Standard library only, so workloads/ can use it without MPI or CUDA.
//
// nccl-tests' size S ("size" column, bytes) is the whole buffer: count x element x ranks for ops
// whose count is per rank (all_gather, reduce_scatter, all_to_all(v)), count x element for ops
// whose count is the whole buffer (all_reduce, broadcast, send, recv, send_recv). Each op's spec
// says which; the registry answers for a kind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "collectives/ops/op_list.hpp"

namespace collreplay {

// One value per line of op_list.hpp, in its order; the registry (op_registry.cpp) maps each to
// its spec. send and recv are one side of a point-to-point pair (the peer is the op's,
// schedule.hpp); send_recv is nccl-tests' sendrecv: every rank sends to the next and receives
// from the previous at once.
enum class CollectiveKind {
#define COLLREPLAY_KIND_VALUE(op) op,
  COLLREPLAY_FOR_EACH_OP(COLLREPLAY_KIND_VALUE)
#undef COLLREPLAY_KIND_VALUE
};

// How many kinds there are: the lines of op_list.hpp.
inline constexpr std::size_t kCollectiveKindCount = 0
#define COLLREPLAY_COUNT_KIND(op) +1
    COLLREPLAY_FOR_EACH_OP(COLLREPLAY_COUNT_KIND);
#undef COLLREPLAY_COUNT_KIND

// "all_gather", as in results: the op's line in op_list.hpp.
constexpr std::string_view collective_kind_name(CollectiveKind kind) {
  constexpr std::string_view kNames[] = {
#define COLLREPLAY_KIND_NAME(op) #op,
      COLLREPLAY_FOR_EACH_OP(COLLREPLAY_KIND_NAME)
#undef COLLREPLAY_KIND_NAME
  };
  const auto at = static_cast<std::size_t>(kind);
  return at < std::size(kNames) ? kNames[at] : std::string_view("?");
}

enum class SizeBasis {
  per_rank,      // S = count x element x ranks
  whole_buffer,  // S = count x element
};

// From the op's spec, through the registry (defined in op_registry.cpp).
SizeBasis size_basis(CollectiveKind kind);
// One side of a point-to-point transfer (send, recv, send_recv): issued in a p2p group with its
// partner ops (OpSpec::point_to_point).
bool is_point_to_point(CollectiveKind kind);
std::vector<CollectiveKind> collective_kinds();  // in registry order (op_list.hpp)

// Bytes of S per unit of count.
constexpr std::uint64_t size_unit_bytes(SizeBasis basis, std::uint64_t element_bytes, int ranks) {
  return basis == SizeBasis::per_rank ? element_bytes * static_cast<std::uint64_t>(ranks)
                                      : element_bytes;
}
// The count for S, rounded down as nccl-tests does; bytes_for_count is its inverse.
constexpr std::uint64_t count_for_bytes(SizeBasis basis, std::uint64_t bytes,
                                        std::uint64_t element_bytes, int ranks) {
  return bytes / size_unit_bytes(basis, element_bytes, ranks);
}
constexpr std::uint64_t bytes_for_count(SizeBasis basis, std::uint64_t count,
                                        std::uint64_t element_bytes, int ranks) {
  return count * size_unit_bytes(basis, element_bytes, ranks);
}
// A schedule's S must be exact: it divides into the group's ranks (per_rank) of whole elements.
constexpr bool size_divides(SizeBasis basis, std::uint64_t bytes, std::uint64_t element_bytes,
                            int ranks) {
  return bytes % size_unit_bytes(basis, element_bytes, ranks) == 0;
}

}  // namespace collreplay
