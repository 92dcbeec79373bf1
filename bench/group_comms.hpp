// The communicators a schedule's collectives run on: world plus one sub-communicator per
// GroupKind it uses (node: the ranks of one host; the others by the rank layout of
// workloads/plan/mesh.hpp: expert, data_parallel, tp, shard, replicate, expert_node, expert_rail).
#pragma once
#include <map>
#include <memory>
#include <vector>

#include "collectives/communicator.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

class GroupComms {
 public:
  // Collective over `world`. `node_color` is the same number on every rank of one host and
  // differs between hosts (replay uses the lowest world rank on the host).
  GroupComms(Communicator& world, const Schedule& schedule, int node_color);

  Communicator& get(GroupKind group) const;
  bool has(GroupKind group) const { return group == GroupKind::world || subgroups_.count(group); }
  Communicator& world() const { return world_; }
  // world first, then each sub-communicator created.
  std::vector<Communicator*> all() const;

 private:
  Communicator& world_;
  std::map<GroupKind, std::unique_ptr<Communicator>> subgroups_;
};

}  // namespace collreplay
