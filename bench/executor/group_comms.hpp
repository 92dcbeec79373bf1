// The communicators a schedule's collectives run on: world plus one sub-communicator per group
// it uses (node: the ranks of one host; the others by the rank layout of
// workloads/plan/parallel/mesh.hpp: expert, data_parallel, tp, shard, replicate, expert_node,
// expert_rail, and one per strided (size, stride)), ordered by rank.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "bench/executor/group_key.hpp"
#include "collectives/communicator.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// Returns the largest of every rank's value (MPI_Allreduce MAX in replay; identity alone).
using AgreeMax = std::function<double(double)>;

class GroupComms {
 public:
  // Collective over `world`. `node_color` is the same number on every rank of one host and
  // differs between hosts (replay uses the lowest world rank on the host). Every rank splits
  // the same groups in the same order, so they must agree on the set the schedule uses:
  // `agree_max` (none: one process) checks that, and a disagreement is a UsageError on every
  // rank instead of a split that never completes.
  GroupComms(Communicator& world, const Schedule& schedule, int node_color,
             const AgreeMax& agree_max = {});

  Communicator& get(const GroupKey& key) const;
  Communicator& get(GroupKind group) const { return get(GroupKey{group, 0, 0}); }
  bool has(GroupKind group) const {
    return group == GroupKind::world || subgroups_.count(GroupKey{group, 0, 0});
  }
  // world first, then the sub-communicators' groups in split order.
  std::vector<GroupKey> keys() const;
  Communicator& world() const { return world_; }
  // world first, then each sub-communicator created.
  std::vector<Communicator*> all() const;
  // Abandons every sub-communicator, then world (Communicator::abandon): nothing afterwards can
  // block on a collective that a dead or stopped peer will never finish.
  void abandon_all() const;

 private:
  Communicator& world_;
  std::map<GroupKey, std::unique_ptr<Communicator>> subgroups_;
};

// Declared after everything that owns device memory or waits on streams (the executor, the
// compute engine), it is destroyed first: when an exception (a TimeoutError, a peer's failure)
// unwinds the scope, it abandons every communicator before those destructors free buffers or
// synchronize streams, which would otherwise wait for the stuck collective for ever.
class AbandonOnUnwind {
 public:
  explicit AbandonOnUnwind(const GroupComms& groups);
  ~AbandonOnUnwind();
  AbandonOnUnwind(const AbandonOnUnwind&) = delete;
  AbandonOnUnwind& operator=(const AbandonOnUnwind&) = delete;

 private:
  const GroupComms& groups_;
  int uncaught_at_start_;
};

}  // namespace collreplay
