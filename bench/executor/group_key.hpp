// Which communicator a collective runs on: its GroupKind and, for a strided group, its size and
// stride (every distinct (size, stride) is a communicator, and a stream, of its own).
#pragma once
#include <compare>
#include <string>

#include "workloads/schedule.hpp"

namespace collreplay {

struct GroupKey {
  GroupKind kind = GroupKind::world;
  int size = 0, stride = 0;  // strided only; 0 otherwise
  auto operator<=>(const GroupKey&) const = default;
};

inline GroupKey group_key(const CollectiveOp& c) {
  if (c.group != GroupKind::strided) return {c.group, 0, 0};
  return {c.group, c.group_size, c.group_stride};
}

// "tp", "strided(4,2)".
inline std::string group_key_label(const GroupKey& key) {
  if (key.kind != GroupKind::strided) return std::string(group_kind_name(key.kind));
  return "strided(" + std::to_string(key.size) + "," + std::to_string(key.stride) + ")";
}

}  // namespace collreplay
