// Where every rank sits in the parallel mesh, as plain rank arithmetic shared by the schedule
// builder (group sizes) and the executor (which ranks split into which sub-communicator).
//
// Dense layout: rank = (replica * shard_group + shard) * tp + tp_index (TP innermost, so a TP group
// is tp consecutive ranks on one node). MoE layout (--mesh DPxEPxTP, torchtitan's dp_shard x ep x
// tp): rank = (dp * ep + ep_index) * tp + tp_index; the dense shard group is then dp * ep ranks.
#pragma once
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

// --mesh DPxEPxTP ("2x4x2"): each factor >= 1. Throws UsageError.
struct MeshDims {
  int dp = 1, ep = 1, tp = 1;
};
MeshDims parse_mesh(std::string_view text);

}  // namespace collreplay
