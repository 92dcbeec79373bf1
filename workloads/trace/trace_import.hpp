// `--trace FILE`: a real job's torch.profiler trace as the schedule of every rank. Two ways to
// cover the ranks:
//   - one trace per rank: a path holding "%d" ("dir/rank%d.trace.json"), each rank its own
//     trace; the world must be the traced world;
//   - one trace for all (a symmetric job, FSDP's): that rank's schedule is every rank's. At a
//     world other than the traced one, collectives over the whole world keep FSDP's size (the
//     gathered unit), padded up to whole elements per rank as FSDP pads its shards; a trace with
//     collectives over smaller groups is refused (exit 2).
#pragma once
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"
#include "workloads/trace/trace_schedule.hpp"

namespace collreplay::trace {

// request.trace for request.rank at request.world (0: the traced world). Micro-batch, sequence
// and micro-batches come from the request (they set tokens per step); --host-time none drops the
// host time. UsageError naming what is missing or does not fit.
TraceImport import_trace(const WorkloadRequest& request);

}  // namespace collreplay::trace

namespace collreplay {

// The schedule a request names: imported from its trace, or built from the catalog.
Schedule schedule_for_request(const WorkloadRequest& request);

}  // namespace collreplay
