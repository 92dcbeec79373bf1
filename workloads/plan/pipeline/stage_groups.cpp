#include "workloads/plan/pipeline/stage_groups.hpp"

#include <string>

#include "common/errors.hpp"

namespace collreplay {

CollectiveOp on_stage_group(CollectiveOp c, const MeshLayout& stage) {
  if (c.group == GroupKind::strided) return c;
  const int tp = stage.tp, ep = stage.ep;
  int stride = 1;
  switch (c.group) {
    case GroupKind::world:
    case GroupKind::tp: stride = 1; break;
    // Dense layout: local = (replica x shard_group + shard) x tp + t.
    case GroupKind::shard: stride = tp; break;
    case GroupKind::replicate: stride = stage.shard() * tp; break;
    // MoE layout: local = (dp x ep + e) x tp + t.
    case GroupKind::expert: stride = tp; break;
    case GroupKind::data_parallel: stride = ep * tp; break;
    default:
      throw RuntimeError("pipeline: the " + std::string(group_kind_name(c.group)) +
                         " group has no place in a pipeline stage");
  }
  c.group_size = mesh_group_size(stage, c.group);
  c.group_stride = stride;
  c.group = GroupKind::strided;
  return c;
}

}  // namespace collreplay
