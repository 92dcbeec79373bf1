// The collectives collreplay knows and nccl-tests' size rule, for everyone who sizes one: the op
// specs (collectives/ops/<op>.cpp), the replay's call preparation and the schedule builder and
// reader in workloads/. Standard library only, so workloads/ can use it without MPI or CUDA.
//
// nccl-tests' size S ("size" column, bytes) is the whole buffer: count x element x ranks for ops
// whose count is per rank (all_gather, reduce_scatter, all_to_all(v)), count x element for ops
// whose count is the whole buffer (all_reduce, broadcast, send, recv, send_recv). Each op's spec
// says which; the registry answers for a kind.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace collreplay {

// One value per op spec under collectives/ops/; the registry (op_registry.cpp) maps each to its
// spec. send and recv are one side of a point-to-point pair (the peer is the op's, schedule.hpp);
// send_recv is nccl-tests' sendrecv: every rank sends to the next and receives from the previous
// at once.
enum class CollectiveKind {
  all_gather,
  reduce_scatter,
  all_to_all,
  all_to_allv,
  all_reduce,
  broadcast,
  send,
  recv,
  send_recv
};

// One side of a point-to-point transfer, issued in a p2p group with its partner ops.
constexpr bool is_point_to_point(CollectiveKind kind) {
  return kind == CollectiveKind::send || kind == CollectiveKind::recv ||
         kind == CollectiveKind::send_recv;
}

enum class SizeBasis {
  per_rank,      // S = count x element x ranks
  whole_buffer,  // S = count x element
};

// From the op's spec, through the registry (defined in op_registry.cpp).
std::string_view collective_kind_name(CollectiveKind kind);  // "all_gather", as in results
SizeBasis size_basis(CollectiveKind kind);
std::vector<CollectiveKind> collective_kinds();  // in registry order

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
