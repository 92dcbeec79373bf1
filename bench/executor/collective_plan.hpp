// From a schedule's collective op (whole-buffer bytes S, nccl-tests style) to the call the
// Communicator takes (per-rank element counts, layouts), and the buffers every collective of a
// group shares: allocated once, sized to the group's largest op, before anything is timed.
#pragma once
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "bench/executor/group_key.hpp"
#include "collectives/communicator.hpp"
#include "collectives/ops/op_spec.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct PreparedCollective {
  int op = -1;  // index in the schedule
  CollectiveKind kind = CollectiveKind::all_gather;
  DType dtype = DType::bf16;
  GroupKind group = GroupKind::world;
  GroupKey key;  // the communicator it runs on
  const OpSpec* spec = nullptr;
  // The op's out-of-place layout in its group (layout.ranks is the group size): its count and,
  // for all_to_allv, this rank's per-peer counts and displacements from the schedule. Other
  // out-of-place layouts are the same on every rank, so layout.rank is left at 0.
  OpLayout layout;
  std::uint64_t send_bytes = 0, recv_bytes = 0;
  // Where its data starts in its group's buffers: 0 but for the point-to-point ops of a p2p
  // group, which each get their own part (two receives of one group never share memory).
  std::uint64_t send_offset_bytes = 0, recv_offset_bytes = 0;
};

// UsageError, naming the op, when S does not divide into the group or the all_to_allv counts
// do not match the group size or S.
PreparedCollective prepare_collective(const ScheduleOp& op, int op_index, int group_size);

// Issues the collective on `comm` (asynchronous, like every Communicator op) through its spec;
// a point-to-point op as a p2p group of its own. `send` and `recv` are the group's buffers.
void issue_collective(Communicator& comm, const PreparedCollective& call, void* send, void* recv);

// The sends and receives of a send, recv or send_recv (to the next group rank, from the
// previous one) on the group's buffers, at the call's offsets, to be issued in one p2p group
// with those of its partners.
std::vector<P2pCall> p2p_calls(const Communicator& comm, const PreparedCollective& call,
                               void* send, void* recv);

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

  // Grows the plan for the call's group (on `comm`) to hold `call` at its offsets; allocate()
  // then reserves memory.
  void plan(Communicator& comm, const PreparedCollective& call);
  void allocate();
  const Pair& of(const GroupKey& group) const;
  std::uint64_t total_bytes() const;

 private:
  std::map<GroupKey, Pair> pairs_;
};

}  // namespace collreplay
