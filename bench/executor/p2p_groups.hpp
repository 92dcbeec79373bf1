// Which point-to-point ops of a schedule are issued together as one p2p group (Communicator::
// p2p_group), as torch's batch_isend_irecv and 1F1B pipelines issue them: send / recv /
// send_recv ops of one group key, consecutive among the schedule's collectives (compute ops
// between them run on another stream), none depending on an op at or after the group's first
// (so nothing the group waits for can wait for the group). Without this, two ranks that both
// send first would wait for each other.
#pragma once
#include <vector>

#include "bench/executor/collective_plan.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

class P2pGroups {
 public:
  P2pGroups() = default;
  // `collective_of_op`: index into `calls` per schedule op, -1 for compute ops. Gives every
  // member of a group its own part of the group's buffers (the calls' offsets), so that two
  // receives of one group never write the same memory.
  P2pGroups(const Schedule& schedule, const std::vector<int>& collective_of_op,
            std::vector<PreparedCollective>& calls);

  // The op the group of `op` is issued with (itself for every op outside a larger group).
  int first(int op) const { return first_[static_cast<std::size_t>(op)]; }
  // The collectives issued with `op` when it is the first of its group, `op` first; empty for
  // the other members.
  std::vector<int> members(int op) const;

 private:
  std::vector<int> first_, last_;
  std::vector<int> collective_;  // collective_of_op
};

}  // namespace collreplay
