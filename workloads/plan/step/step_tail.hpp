// What the schedule builder appends after the step's micro-batches: the optimizer step, and the
// per-unit and per-MoE-layer summaries that dry runs, tables and results print.
#pragma once
#include <cstddef>
#include <vector>

#include "workloads/plan/moe_routing.hpp"
#include "workloads/plan/parallel/ddp_buckets.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step_structure.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// The optimizer step, after every collective of the last micro-batch's backward (its ops start
// at `last_mb`); the distributed optimizer's on the rank's shard of `buckets`; nothing with
// --optimizer none.
void append_optimizer_step(const ResolvedRequest& r, const StepStructure& s,
                           const std::vector<DdpBucket>& buckets, std::size_t last_mb,
                           Schedule& out);
// Units (DDP buckets for ddp) with their shard and collective bytes and FLOPs, and each MoE
// layer's dispatch and combine bytes for this rank.
void append_summaries(const ResolvedRequest& r, const StepStructure& s,
                      const std::vector<MoeLayerTraffic>& traffic,
                      const std::vector<DdpBucket>& buckets, Schedule& out);

}  // namespace collreplay
