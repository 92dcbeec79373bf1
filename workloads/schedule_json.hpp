// Schedules as JSON (schema in workloads/SCHEDULE.md, version kScheduleSchemaVersion), and the
// `replay --dry-run --format json` summary whose keys scripts rely on.
#pragma once
#include <string>
#include <string_view>

#include "workloads/schedule.hpp"

namespace collreplay {

std::string schedule_to_json(const Schedule& schedule);

// Parses and validates everything (version, enums, deps pointing at earlier ops, hides_behind
// naming a compute op, all_to_allv counts sized to their group and matching bytes, world > 0...).
// Throws UsageError with one line naming `origin` and the problem.
Schedule schedule_from_json(std::string_view text, std::string_view origin);

// The dry run as JSON: {model, plan, wrap, world, units[], moe[], totals} (SCHEDULE.md).
std::string dry_run_json(const Schedule& schedule);

}  // namespace collreplay
