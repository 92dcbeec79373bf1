// What a schedule adds up to per step per rank, and the human table `replay --dry-run` prints.
#pragma once
#include <array>
#include <cstdint>
#include <iosfwd>
#include <iterator>
#include <map>
#include <utility>

#include "workloads/schedule.hpp"

namespace collreplay {

// Collectives of one group per step per rank.
struct GroupTotals {
  std::uint64_t ops = 0, bytes = 0;
};

struct ScheduleTotals {
  std::uint64_t params = 0, active_params = 0;
  std::uint64_t allgathers = 0, reduce_scatters = 0, alltoalls = 0;  // ops per step (every kind of
  std::uint64_t allgather_bytes = 0, reduce_scatter_bytes = 0,
                alltoall_bytes = 0;  // all-gather counts)
  std::uint64_t allreduces = 0, allreduce_bytes = 0;
  std::uint64_t broadcasts = 0, broadcast_bytes = 0;
  // Point-to-point: a send_recv counts as one send and one receive of its S.
  std::uint64_t sends = 0, send_bytes = 0, recvs = 0, recv_bytes = 0;
  // Every op of a kind (indexed by CollectiveKind); the fields above name them as the schedule's
  // JSON does.
  std::array<GroupTotals, kCollectiveKindCount> by_kind{};
  std::array<GroupTotals, std::size(kAllGroupKinds)> by_group{};  // indexed by GroupKind
  // The strided groups (also in by_group[strided]) by (group_size, group_stride).
  std::map<std::pair<int, int>, GroupTotals> by_strided_group;
  double flops = 0;                                               // every GEMM of every compute op
  // The non-GEMM kernels: launches, bytes read + written, host syncs, per phase (Phase order).
  std::array<std::uint64_t, 4> kernel_launches{}, kernel_bytes{}, syncs{};
  double host_us = 0;  // framework host time of every compute op
};

// Sums over the ops (all-to-all counts both all_to_all and all_to_allv).
ScheduleTotals schedule_totals(const Schedule& schedule);

// Size of the group a collective runs over in this schedule (strided: see collective_group_size).
int group_size(const Schedule& schedule, GroupKind group);
// Size of the op's group: group_size() or, for a strided group, its own group_size.
int collective_group_size(const Schedule& schedule, const CollectiveOp& collective);

void print_schedule_table(const Schedule& schedule, std::ostream& out);

// Every compute op with every GEMM and kernel in launch order (`replay --dry-run --format
// slices`).
void print_schedule_slices(const Schedule& schedule, std::ostream& out);

}  // namespace collreplay
