#include "bench/replay/group_comms.hpp"

#include <exception>
#include <set>
#include <string>

#include "bench/replay/collective_plan.hpp"
#include "common/errors.hpp"

namespace collreplay {

GroupComms::GroupComms(Communicator& world, const Schedule& schedule, int node_color)
    : world_(world) {
  std::set<GroupKind> used;
  for (const ScheduleOp& op : schedule.ops)
    if (op.is_collective() && op.collective().group != GroupKind::world)
      used.insert(op.collective().group);
  const int rank = world.rank();
  const int ep = schedule.ep;
  if (used.count(GroupKind::expert) || used.count(GroupKind::data_parallel)) {
    if (ep < 1 || world.size() % ep != 0)
      throw UsageError("expert-parallel degree " + std::to_string(ep) +
                       " does not divide the world of " + std::to_string(world.size()) +
                       " ranks");
  }
  // std::set iterates in enum order, so every rank splits in the same order.
  for (GroupKind group : used) {
    int color = 0;
    if (group == GroupKind::node) color = node_color;
    if (group == GroupKind::expert) color = rank / ep;
    if (group == GroupKind::data_parallel) color = rank % ep;
    subgroups_[group] = world.split(color, rank);
  }
}

Communicator& GroupComms::get(GroupKind group) const {
  if (group == GroupKind::world) return world_;
  auto it = subgroups_.find(group);
  if (it == subgroups_.end())
    throw RuntimeError("no communicator for group " + std::string(group_kind_name(group)));
  return *it->second;
}

std::vector<Communicator*> GroupComms::all() const {
  std::vector<Communicator*> comms{&world_};
  for (const auto& [group, comm] : subgroups_) comms.push_back(comm.get());
  return comms;
}

void GroupComms::abandon_all() const {
  for (auto it = subgroups_.rbegin(); it != subgroups_.rend(); ++it)
    if (it->second) it->second->abandon();
  world_.abandon();
}

AbandonOnUnwind::AbandonOnUnwind(const GroupComms& groups)
    : groups_(groups), uncaught_at_start_(std::uncaught_exceptions()) {}

AbandonOnUnwind::~AbandonOnUnwind() {
  if (std::uncaught_exceptions() > uncaught_at_start_) groups_.abandon_all();
}

}  // namespace collreplay
