// A replayed collective against the emulated profile's links (bench/app/run/line_rate.hpp): in
// the comm-only pass every group of the op's kind runs it at once, and its time is the slowest
// rank's median, so the bound is the tightest over those groups (each alone on the links: a
// bound that holds however the groups share them). Groups that stay on one node (node groups),
// point-to-point ops and all_to_allv (whose count matrix a replay does not keep) have none.
#pragma once
#include <cstddef>
#include <optional>

#include "bench/app/run/line_rate.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// The verdict on op `op` of `schedule` that moved `bus_bytes` in `seconds` (undilated) on `world`
// ranks; nullopt where nothing bounds it.
std::optional<LineRateVerdict> replay_op_line_rate(const Schedule& schedule, const ScheduleOp& op,
                                                   const NodeLinks& links, double bus_bytes,
                                                   double seconds);

}  // namespace collreplay
