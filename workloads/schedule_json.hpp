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

Schedule load_schedule_file(const std::string& path);

// Per-rank schedule files: a path holding "%d" names one file per rank ("dir/rank%d.json").
bool is_per_rank_pattern(const std::string& path);
std::string path_for_rank(const std::string& pattern, int rank);  // every "%d" -> rank
// The schedule `rank` replays from --schedule `path` (a pattern or one file). UsageError when a
// single file is another rank's and holds all_to_allv ops, whose counts differ per rank.
Schedule load_schedule_for_rank(const std::string& path, int rank);
// Written to a temporary file and renamed: a crash never leaves half a file.
void save_schedule_file(const Schedule& schedule, const std::string& path);

// The dry run as JSON: {model, plan, wrap, world, units[], moe[], totals} (SCHEDULE.md).
std::string dry_run_json(const Schedule& schedule);

}  // namespace collreplay
