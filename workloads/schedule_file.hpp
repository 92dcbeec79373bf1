// Schedules in files: one file for every rank, or one per rank through a "%d" pattern.
#pragma once
#include <string>

#include "workloads/schedule.hpp"

namespace collreplay {

Schedule load_schedule_file(const std::string& path);

// Per-rank schedule files: a path holding "%d" names one file per rank ("dir/rank%d.json").
bool is_per_rank_pattern(const std::string& path);
std::string path_for_rank(const std::string& pattern, int rank);  // every "%d" -> rank
// The schedule `rank` replays from --schedule `path` (a pattern or one file). UsageError when a
// single file is another rank's and holds all_to_allv ops, whose counts differ per rank.
Schedule load_schedule_for_rank(const std::string& path, int rank);
// Written to a temporary file and renamed: a crash never leaves half a file.
void save_schedule_file(const Schedule& schedule, const std::string& path);

}  // namespace collreplay
