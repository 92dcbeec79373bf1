#include "workloads/schedule_file.hpp"

#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/read_file.hpp"
#include "workloads/schedule_json.hpp"

namespace collreplay {

Schedule load_schedule_file(const std::string& path) {
  return schedule_from_json(read_whole_file(path, "schedule file"), path);
}

bool is_per_rank_pattern(const std::string& path) { return path.find("%d") != std::string::npos; }

std::string path_for_rank(const std::string& pattern, int rank) {
  std::string path = pattern;
  for (std::size_t at = path.find("%d"); at != std::string::npos; at = path.find("%d", at))
    path.replace(at, 2, std::to_string(rank));
  return path;
}

Schedule load_schedule_for_rank(const std::string& path, int rank) {
  if (is_per_rank_pattern(path)) {
    const std::string mine = path_for_rank(path, rank);
    Schedule s = load_schedule_file(mine);
    if (s.rank != rank)
      throw UsageError("schedule file '" + mine + "' is rank " + std::to_string(s.rank) +
                       "'s, not rank " + std::to_string(rank) + "'s");
    return s;
  }
  Schedule s = load_schedule_file(path);
  bool varies_by_rank = false;
  for (const ScheduleOp& op : s.ops)
    varies_by_rank |= op.is_collective() && (op.collective().kind == CollectiveKind::all_to_allv ||
                                             op.collective().kind == CollectiveKind::send ||
                                             op.collective().kind == CollectiveKind::recv);
  if (varies_by_rank && s.rank != rank)
    throw UsageError("schedule file '" + path + "' is rank " + std::to_string(s.rank) +
                     "'s and its all_to_allv counts or send/recv peers differ by rank: give one "
                     "file per rank, --schedule 'dir/rank%d.json' (written by --dry-run --save-schedule "
                     "'dir/rank%d.json')");
  return s;
}

void save_schedule_file(const Schedule& schedule, const std::string& path) {
  write_file_atomically(path, schedule_to_json(schedule));
}

}  // namespace collreplay
