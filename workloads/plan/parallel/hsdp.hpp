// Hybrid sharding (FSDP1 HYBRID_SHARD / _HYBRID_SHARD_ZERO2, FSDP2 on a replicate x shard mesh):
// units are gathered and reduce-scattered within the shard group (padding to its size), then
// the reduced shard is all-reduced across the replica group right after its reduce-scatter
// (FSDP1 _post_backward_hook / FSDP2 foreach_reduce: all_reduce on the replicate group).
#pragma once
#include "workloads/plan/parallel/phase_ops.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step_structure.hpp"

namespace collreplay {

// Elements this rank all-reduces for `unit` (its reduce-scatter output), 0 when no replicas.
std::uint64_t hsdp_allreduce_numel(const ResolvedRequest& r, const Unit& unit);

// Appends the all-reduce that follows `reduce_scatter` (same issue point and overlap target).
void add_hsdp_allreduce(const ResolvedRequest& r, const Unit& unit, const CommItem& reduce_scatter,
                        PhaseOps& ops);

}  // namespace collreplay
