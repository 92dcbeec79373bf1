#include "bench/executor/group_comms.hpp"

#include <exception>
#include <set>
#include <string>

#include "bench/executor/collective_plan.hpp"
#include "common/errors.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {

GroupComms::GroupComms(Communicator& world, const Schedule& schedule, int node_color)
    : world_(world) {
  std::set<GroupKind> used;
  for (const ScheduleOp& op : schedule.ops)
    if (op.is_collective() && op.collective().group != GroupKind::world)
      used.insert(op.collective().group);
  const int rank = world.rank();
  const MeshLayout mesh = mesh_layout(schedule);
  if (mesh.ep < 1 || mesh.tp < 1 || world.size() % (mesh.ep * mesh.tp) != 0 ||
      world.size() % (mesh.shard() * mesh.tp) != 0)
    throw UsageError("the schedule's mesh (ep " + std::to_string(mesh.ep) + ", tp " +
                     std::to_string(mesh.tp) + ", shard group " + std::to_string(mesh.shard()) +
                     ") does not divide the world of " + std::to_string(world.size()) + " ranks");
  // std::set iterates in enum order, so every rank splits in the same order. Every group but
  // node follows the schedule's layout (its gpus_per_node), so emulated nodes on one host work.
  for (GroupKind group : used) {
    const int color = group == GroupKind::node ? node_color : mesh_group_color(mesh, group, rank);
    subgroups_[group] = world.split(color, rank);
    if (subgroups_[group]->size() != mesh_group_size(mesh, group))
      throw UsageError("group " + std::string(group_kind_name(group)) + " has " +
                       std::to_string(subgroups_[group]->size()) +
                       " ranks here, the schedule expects " +
                       std::to_string(mesh_group_size(mesh, group)));
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
