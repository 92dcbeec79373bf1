#include "workloads/plan/parallel/hsdp.hpp"

namespace collreplay {

std::uint64_t hsdp_allreduce_numel(const ResolvedRequest& r, const Unit& unit) {
  if (!r.hybrid || r.replicas == 1 || unit.group == GroupKind::data_parallel) return 0;
  return unit.gathered_numel / static_cast<std::uint64_t>(unit.group_size);
}

void add_hsdp_allreduce(const ResolvedRequest& r, const Unit& unit, const CommItem& reduce_scatter,
                        PhaseOps& ops) {
  const std::uint64_t numel = hsdp_allreduce_numel(r, unit);
  if (numel == 0) return;
  CommItem c = reduce_scatter;
  // The reduce-scatter is named <prefix>rs.<unit>.
  c.name = c.name.substr(0, c.name.size() - unit.name.size() - 3) + "ar." + unit.name;
  c.op.kind = CollectiveKind::all_reduce;
  c.op.group = dense_replica_group(r);
  c.op.bytes = times(numel, dtype_size_bytes(r.reduce_dtype));
  c.priority = 3;
  c.after_comm = reduce_scatter.name;
  ops.comm.push_back(c);
}

}  // namespace collreplay
