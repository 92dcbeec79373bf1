#include "bench/replay/measure/graph_step.hpp"

#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "bench/app/stats.hpp"
#include "bench/executor/collective_plan.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

std::set<GroupKey> collective_groups(const Schedule& schedule) {
  std::set<GroupKey> groups;
  for (const ScheduleOp& op : schedule.ops)
    if (op.is_collective()) groups.insert(group_key(op.collective()));
  return groups;
}

}  // namespace

void require_one_collective_group(const Schedule& schedule) {
  const std::set<GroupKey> groups = collective_groups(schedule);
  if (groups.size() == 1) return;
  std::string names;
  for (const GroupKey& g : groups) names += (names.empty() ? "" : ", ") + group_key_label(g);
  throw UsageError("-G records the comm-only step on one communicator, but this schedule's "
                   "collectives run on " +
                   std::to_string(groups.size()) + " groups (" +
                   (names.empty() ? "none" : names) + ")");
}

int collectives_per_step(const Schedule& schedule) {
  int count = 0;
  for (const ScheduleOp& op : schedule.ops) count += op.is_collective() ? 1 : 0;
  return count;
}

double time_comm_only_graph(const Executor& executor, int launches, const AgreeMax& agree_max) {
  const Schedule& schedule = executor.schedule();
  const GroupKey group = *collective_groups(schedule).begin();
  Communicator& comm = executor.groups().get(group);
  const std::unique_ptr<CapturedWork> graph = comm.capture([&] {
    for (int i = 0; i < static_cast<int>(schedule.ops.size()); ++i)
      if (!executor.issued_with(i).empty()) executor.issue_group(i);  // p2p groups whole
  });
  graph->launch();  // uploads it: the timed launches find it ready
  comm.wait_all("the comm-only step as a CUDA graph (-G), first launch");
  using Clock = std::chrono::steady_clock;
  std::vector<double> step_ms;
  for (int launch = 0; launch < launches; ++launch) {
    executor.groups().world().barrier();
    const Clock::time_point start = Clock::now();
    graph->launch();
    comm.wait_all("the comm-only step as a CUDA graph (-G), launch " + std::to_string(launch + 1));
    step_ms.push_back(
        agree_max(std::chrono::duration<double, std::milli>(Clock::now() - start).count()));
  }
  return median(step_ms);
}

}  // namespace collreplay
