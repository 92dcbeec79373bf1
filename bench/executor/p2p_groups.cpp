#include "bench/executor/p2p_groups.hpp"

#include <algorithm>

#include "common/sizes.hpp"
#include "workloads/p2p_batches.hpp"

namespace collreplay {

P2pGroups::P2pGroups(const Schedule& schedule, const std::vector<int>& collective_of_op,
                     std::vector<PreparedCollective>& calls) {
  first_ = p2p_group_leaders(schedule);
  last_.resize(first_.size());
  std::uint64_t send_offset = 0, recv_offset = 0;
  for (int i = 0; i < static_cast<int>(first_.size()); ++i) {
    last_[i] = i;
    if (collective_of_op[i] < 0) continue;
    PreparedCollective& call = calls[collective_of_op[i]];
    if (!is_point_to_point(call.kind)) continue;
    if (first_[i] == i) send_offset = recv_offset = 0;
    last_[first_[i]] = i;
    call.send_offset_bytes = send_offset;
    call.recv_offset_bytes = recv_offset;
    send_offset = checked_add(send_offset, call.send_bytes, "p2p group bytes");
    recv_offset = checked_add(recv_offset, call.recv_bytes, "p2p group bytes");
  }
  collective_ = collective_of_op;
}

std::vector<int> P2pGroups::members(int op) const {
  if (first(op) != op) return {};
  std::vector<int> ops;
  for (int i = op; i <= last_[static_cast<std::size_t>(op)]; ++i)
    if (collective_[static_cast<std::size_t>(i)] >= 0) ops.push_back(i);
  return ops;
}

}  // namespace collreplay
