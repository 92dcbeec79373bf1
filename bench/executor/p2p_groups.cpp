#include "bench/executor/p2p_groups.hpp"

#include <algorithm>

#include "common/sizes.hpp"

namespace collreplay {

P2pGroups::P2pGroups(const Schedule& schedule, const std::vector<int>& collective_of_op,
                     std::vector<PreparedCollective>& calls) {
  const int count = static_cast<int>(schedule.ops.size());
  first_.resize(count);
  last_.resize(count);
  for (int i = 0; i < count; ++i) first_[i] = last_[i] = i;
  int open = -1;  // first op of the group being built
  std::uint64_t send_offset = 0, recv_offset = 0;
  for (int i = 0; i < count; ++i) {
    if (collective_of_op[i] < 0) continue;  // compute ops run on another stream
    PreparedCollective& call = calls[collective_of_op[i]];
    if (!is_point_to_point(call.kind)) {
      open = -1;
      continue;
    }
    const std::vector<int>& deps = schedule.ops[i].deps;
    const bool joins = open >= 0 && call.key == calls[collective_of_op[open]].key &&
                       std::all_of(deps.begin(), deps.end(), [&](int d) { return d < open; });
    if (!joins) {
      open = i;
      send_offset = recv_offset = 0;
    }
    first_[i] = open;
    last_[open] = i;
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
