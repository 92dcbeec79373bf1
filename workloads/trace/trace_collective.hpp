// One traced NCCL kernel as schedule collectives: the kind from torch's "Collective name", the
// nccl-tests size S from the element counts and dtype, the group from the process group's ranks,
// a broadcast's root, a send's or recv's peer, an uneven all_to_all_single's per-rank counts; a
// coalesced launch (batch_isend_irecv, *_coalesced) as one op per call it holds.
#pragma once
#include <string>
#include <vector>

#include "workloads/schedule.hpp"
#include "workloads/trace/trace_events.hpp"

namespace collreplay::trace {

struct TracedGroup {
  GroupKind kind = GroupKind::world;
  int size = 0, stride = 1;  // strided: group_size and group_stride
};

// The process group `ranks` of a job of `world` ranks: all of them (world), or any arithmetic
// group that tiles the world as a device mesh's do (strided: consecutive ranks, stride 1, or
// every stride-th). UsageError "<where>: ..." otherwise, naming the ranks.
TracedGroup traced_group(const std::vector<int>& ranks, int world, const std::string& where);

// The kernel's collectives, in call order. UsageError naming the kernel, its timestamp and what
// to do for one replay cannot replay (reduce, gather, scatter, a non-arithmetic group, a dtype of
// one byte reduced, an uneven size where even ones are needed).
std::vector<CollectiveOp> traced_collectives(const GpuWork& kernel, int world,
                                             const std::string& path);

}  // namespace collreplay::trace
