#include "workloads/trace/trace_import.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/trace/read/trace_file.hpp"

namespace collreplay::trace {
namespace {

// FSDP at another world: the same gathered unit, padded to whole elements on every rank. Ops tied
// to the traced ranks (a peer, a root, per-rank counts) or to smaller groups do not move.
void spread_over(Schedule& s, int world, const std::string& path) {
  for (ScheduleOp& op : s.ops) {
    if (!op.is_collective()) continue;
    CollectiveOp& c = std::get<CollectiveOp>(op.body);
    if (c.group != GroupKind::world)
      throw UsageError("trace '" + path + "' holds collectives over " + group_label(c) +
                       " groups of a world of " + std::to_string(s.world) +
                       ": replay it at that world, not " + std::to_string(world));
    if (c.kind == CollectiveKind::all_to_allv || is_point_to_point(c.kind))
      throw UsageError("trace '" + path + "' holds a " +
                       std::string(collective_kind_name(c.kind)) +
                       " tied to its ranks: replay it at its world of " +
                       std::to_string(s.world) + ", not " + std::to_string(world));
    if (c.kind == CollectiveKind::all_reduce || c.kind == CollectiveKind::broadcast) continue;
    const std::uint64_t unit = dtype_size_bytes(c.dtype) * static_cast<std::uint64_t>(world);
    c.bytes = (c.bytes + unit - 1) / unit * unit;
  }
  s.world = world;
}

// One rank's trace as another rank's schedule: a peer, or per-rank all-to-all counts, are the
// traced rank's own (rank 0's send to rank 1 would have rank 1 send to itself).
void refuse_rank_bound(const Schedule& s, const std::string& path) {
  for (const ScheduleOp& op : s.ops)
    if (op.is_collective() && (is_point_to_point(op.collective().kind) ||
                               op.collective().kind == CollectiveKind::all_to_allv))
      throw UsageError("trace '" + path + "' is rank " + std::to_string(s.rank) + "'s and holds a " +
                       std::string(collective_kind_name(op.collective().kind)) +
                       " of that rank's own: give every rank its trace (a folder of them, or "
                       "'dir/rank%d.trace.json')");
}

}  // namespace

TraceImport import_trace(const WorkloadRequest& request) {
  if (request.host_time != "eager" && request.host_time != "none")
    throw UsageError("--host-time '" + request.host_time + "' with --trace: expected eager (the "
                     "trace's own host time) or none; a calibration is for catalog models");
  if (request.micro_batch < 1 || request.seq < 1 || request.micro_batches < 1)
    throw UsageError("--micro-batch, --seq and --micro-batches must be positive");
  const TraceSource source = trace_source(request.trace, request.rank);
  const bool per_rank = source.per_rank;
  const std::string& path = source.path;
  // One trace per rank: every rank replays the step rank 0's trace names (its median by default).
  int step = request.trace_step;
  if (per_rank && step < 0 && request.rank != 0) {
    const std::string first = trace_source(request.trace, 0).path;
    step = median_step(read_trace_text(first), first);
  }
  TraceImport in = trace_to_schedule(read_trace(path, step), request.host_time == "eager");
  Schedule& s = in.schedule;
  const int world = request.world > 0 ? request.world : s.world;
  if (request.rank < 0 || request.rank >= world)
    throw UsageError("rank " + std::to_string(request.rank) + " is outside a world of " +
                     std::to_string(world));
  if (per_rank && s.rank != request.rank)
    throw UsageError("trace '" + path + "' is rank " + std::to_string(s.rank) + "'s, not rank " +
                     std::to_string(request.rank) + "'s");
  if (!per_rank && s.rank != request.rank) refuse_rank_bound(s, path);
  if (world != s.world) {
    if (per_rank)
      throw UsageError("the traces are of a world of " + std::to_string(s.world) +
                       " ranks, not " + std::to_string(world));
    spread_over(s, world, path);
  }
  s.rank = request.rank;
  s.model = "trace:" + request.trace;
  s.gpus_per_node = std::clamp(request.gpus_per_node, 1, world);
  s.micro_batch = request.micro_batch;
  s.seq = request.seq;
  s.micro_batches = request.micro_batches;
  s.tokens_per_step = static_cast<std::uint64_t>(request.micro_batch * request.seq) *
                      static_cast<std::uint64_t>(request.micro_batches);
  // Through the schedule file's checks: an import is held to what a loaded schedule is.
  s = schedule_from_json(schedule_to_json(s), "trace '" + path + "'");
  return in;
}

}  // namespace collreplay::trace

namespace collreplay {

Schedule schedule_for_request(const WorkloadRequest& request) {
  if (request.trace.empty()) return build_schedule(request);
  return trace::import_trace(request).schedule;
}

}  // namespace collreplay
