// From a schedule's collective op (whole-buffer bytes S, nccl-tests style) to the call the
// Communicator takes (per-rank element counts, layouts), and the buffers every collective of a
// group shares: allocated once, sized to the group's largest op, before anything is timed.
#pragma once
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/ops/op_spec.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct PreparedCollective {
  int op = -1;  // index in the schedule
  CollectiveKind kind = CollectiveKind::all_gather;
  DType dtype = DType::bf16;
  GroupKind group = GroupKind::world;
  const OpSpec* spec = nullptr;
  // The op's out-of-place layout in its group (layout.ranks is the group size): its count and,
  // for all_to_allv, this rank's per-peer counts and displacements from the schedule. Other
  // out-of-place layouts are the same on every rank, so layout.rank is left at 0.
  OpLayout layout;
  std::uint64_t send_bytes = 0, recv_bytes = 0;
};

// UsageError, naming the op, when S does not divide into the group or the all_to_allv counts
// do not match the group size or S.
PreparedCollective prepare_collective(const ScheduleOp& op, int op_index, int group_size);

// Issues the collective on `comm` (asynchronous, like every Communicator op) through its spec.
void issue_collective(Communicator& comm, const PreparedCollective& call, const void* send,
                      void* recv);

// One send and one receive buffer per group, zero-filled, released on destruction.
class CollectiveBuffers {
 public:
  struct Pair {
    Communicator* comm = nullptr;
    void* send = nullptr;
    void* recv = nullptr;
    std::uint64_t send_bytes = 0, recv_bytes = 0;
  };

  CollectiveBuffers() = default;
  CollectiveBuffers(const CollectiveBuffers&) = delete;
  CollectiveBuffers& operator=(const CollectiveBuffers&) = delete;
  ~CollectiveBuffers();

  // Grows the plan for `group` (on `comm`) to hold `call`; allocate() then reserves memory.
  void plan(Communicator& comm, const PreparedCollective& call);
  void allocate();
  const Pair& of(GroupKind group) const;
  std::uint64_t total_bytes() const;

 private:
  std::map<GroupKind, Pair> pairs_;
};

}  // namespace collreplay
