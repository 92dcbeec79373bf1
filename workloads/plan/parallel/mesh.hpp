// Where every rank sits in the parallel mesh, as plain rank arithmetic shared by the schedule
// builder (group sizes) and the executor (which ranks split into which sub-communicator).
//
// Dense layout: rank = (replica * shard_group + shard) * tp + tp_index (TP innermost, so a TP group
// is tp consecutive ranks on one node). MoE layout (--mesh DPxEPxTP, torchtitan's dp_shard x ep x
// tp): rank = (dp * ep + ep_index) * tp + tp_index; the dense shard group is then dp * ep ranks.
#pragma once
#include <string>
#include <string_view>

#include "workloads/schedule.hpp"

namespace collreplay {

struct MeshLayout {
  int world = 1, gpus_per_node = 1, tp = 1, ep = 1;
  int shard_group = 0;  // 0: world / tp
  int shard() const { return shard_group > 0 ? shard_group : world / tp; }
  // Ranks of one expert group on one node (hierarchical all-to-all): gpus_per_node / tp.
  int expert_local() const;
};

MeshLayout mesh_layout(const Schedule& schedule);

// Ranks in `group`; the same on every rank.
int mesh_group_size(const MeshLayout& mesh, GroupKind group);

// Equal on the ranks of one group and different between groups; ranks order the group.
// GroupKind::node uses rank / gpus_per_node (replay uses the real host instead).
int mesh_group_color(const MeshLayout& mesh, GroupKind group, int rank);

// A strided group (GroupKind::strided): the world splits into groups of `size` ranks spaced
// `stride` apart, rank r's group being {base + i x stride : i < size} with block = size x stride
// and base = r / block x block + r % stride.
struct StridedGroup {
  int size = 1, stride = 1;
  int block() const { return size * stride; }
  // Equal on the ranks of one group, different between groups (the lowest member).
  int color(int rank) const { return rank / block() * block() + rank % stride; }
  int group_rank(int rank) const { return rank / stride % size; }
  // World rank of group rank i in the group of `rank`.
  int member(int rank, int i) const { return color(rank) + i * stride; }
  // Empty when size x stride divides `world`, else why not.
  std::string problem(int world) const;
};
StridedGroup strided_group(const CollectiveOp& collective);

// --mesh DPxEPxTP ("2x4x2"): each factor >= 1. Throws UsageError.
struct MeshDims {
  int dp = 1, ep = 1, tp = 1;
};
MeshDims parse_mesh(std::string_view text);

}  // namespace collreplay
