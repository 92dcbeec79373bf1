// One traced NCCL kernel as a schedule collective: its kind from torch's "Collective name", its
// nccl-tests size S from the element counts and dtype, its group from the process group's ranks.
#pragma once
#include "workloads/schedule.hpp"
#include "workloads/trace/trace_events.hpp"

namespace collreplay::trace {

struct TracedGroup {
  GroupKind kind = GroupKind::world;
  int shard_group = 0;  // shard / replicate: ranks of a shard group; 0 otherwise
};

// The process group `ranks` of a job of `world` ranks: all of them (world), a block of S
// consecutive ranks (shard, FSDP's shard group under HSDP), or every S-th rank (replicate).
// UsageError otherwise, naming the ranks.
TracedGroup traced_group(const std::vector<int>& ranks, int world, const std::string& path);

// UsageError for a collective replay has no op for (broadcast, send/recv, uneven all-to-all) or
// a dtype it does not move, naming the kernel.
CollectiveOp traced_collective(const GpuWork& kernel, int world, const std::string& path,
                               int& shard_group);

}  // namespace collreplay::trace
