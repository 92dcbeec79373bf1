#include "workloads/schedule_json.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

// The unit and MoE summaries, written the same way in saved schedules and in dry-run output.
ordered units_json(const std::vector<UnitSummary>& units) {
  ordered a = ordered::array();
  for (const UnitSummary& u : units)
    a.push_back({{"name", u.name},
                 {"params", u.params},
                 {"shard_bytes", u.shard_bytes},
                 {"allgather_bytes", u.allgather_bytes},
                 {"reduce_scatter_bytes", u.reduce_scatter_bytes},
                 {"allreduce_bytes", u.allreduce_bytes},
                 {"fwd_flops", u.fwd_flops},
                 {"bwd_flops", u.bwd_flops}});
  return a;
}

ordered moe_json(const std::vector<MoeLayerSummary>& moe) {
  ordered a = ordered::array();
  for (const MoeLayerSummary& m : moe)
    a.push_back({{"layer", m.layer},
                 {"dispatch_send_bytes", m.dispatch_send_bytes},
                 {"dispatch_cross_rank_bytes", m.dispatch_cross_rank_bytes},
                 {"combine_send_bytes", m.combine_send_bytes},
                 {"combine_cross_rank_bytes", m.combine_cross_rank_bytes}});
  return a;
}

ordered kernel_json(const KernelSlice& k) {
  ordered o = {{"kind", kernel_kind_name(k.kind)},
               {"label", k.label},
               {"at", k.at},
               {"launches", k.launches},
               {"elements", k.elements}};
  if (k.inner > 0) o["inner"] = k.inner;
  o["read_bytes"] = k.read_bytes;
  o["write_bytes"] = k.write_bytes;
  o["flops"] = k.flops;
  if (k.kind == KernelKind::timed) o["duration_us"] = k.duration_us;
  if (k.kind == KernelKind::multi_tensor) o["operand_element_bytes"] = k.operand_element_bytes;
  if (k.host_us_per_launch > 0) o["host_us_per_launch"] = k.host_us_per_launch;
  return o;
}

}  // namespace

std::string schedule_to_json(const Schedule& s) {
  ordered j;
  j["schema"] = "collreplay.schedule";
  j["version"] = s.schema_version;
  j["model"] = s.model;
  j["plan"] = s.plan;
  j["wrap"] = s.wrap;
  j["world"] = s.world;
  j["gpus_per_node"] = s.gpus_per_node;
  j["ep"] = s.ep;
  j["tp"] = s.tp;
  j["shard_group"] = s.shard_group;
  j["rank"] = s.rank;
  j["micro_batch"] = s.micro_batch;
  j["seq"] = s.seq;
  j["micro_batches"] = s.micro_batches;
  j["tokens_per_step"] = s.tokens_per_step;
  j["model_params"] = s.model_params;
  j["active_params"] = s.active_params;
  j["units"] = units_json(s.units);
  j["moe"] = moe_json(s.moe);
  j["ops"] = ordered::array();
  for (const ScheduleOp& op : s.ops) {
    ordered o;
    o["name"] = op.name;
    o["stream"] = stream_kind_name(op.stream);
    o["phase"] = phase_name(op.phase);
    o["unit"] = op.unit;
    o["layer"] = op.layer;
    o["deps"] = op.deps;
    o["hides_behind"] = op.hides_behind;
    if (op.is_collective()) {
      const CollectiveOp& c = op.collective();
      ordered b = {{"kind", collective_kind_name(c.kind)},
                   {"dtype", dtype_name(c.dtype)},
                   {"group", group_kind_name(c.group)}};
      if (c.group == GroupKind::strided) {
        b["group_size"] = c.group_size;
        b["group_stride"] = c.group_stride;
      }
      b["bytes"] = c.bytes;
      if (op_spec(c.kind).has_root()) b["root"] = c.root;
      if (op_spec(c.kind).needs_partner()) b["peer"] = c.peer;
      if (c.kind == CollectiveKind::all_to_allv) {
        b["send_counts"] = c.send_counts;
        b["recv_counts"] = c.recv_counts;
      }
      o["collective"] = b;
    } else {
      ordered gemms = ordered::array();
      for (const GemmShape& g : op.compute().gemms) {
        ordered gemm = {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"batch", g.batch}, {"label", g.label}};
        if (g.a_transposed) gemm["a_transposed"] = true;
        if (!g.group_rows.empty()) {
          gemm["group_rows"] = g.group_rows;
          gemm["group_dim"] = g.group_k ? "k" : "m";
        }
        gemms.push_back(std::move(gemm));
      }
      ordered kernels = ordered::array();
      for (const KernelSlice& k : op.compute().kernels) kernels.push_back(kernel_json(k));
      o["compute"] = {{"dtype", dtype_name(op.compute().dtype)},
                      {"gemms", gemms},
                      {"kernels", kernels},
                      {"host_us", op.compute().host_us}};
    }
    j["ops"].push_back(o);
  }
  return j.dump(1) + "\n";
}

std::string dry_run_json(const Schedule& s) {
  ordered j;
  j["model"] = s.model;
  j["plan"] = s.plan;
  j["wrap"] = s.wrap;
  j["world"] = s.world;
  j["tp"] = s.tp;
  j["ep"] = s.ep;
  j["shard_group"] = mesh_layout(s).shard();
  j["units"] = units_json(s.units);
  j["moe"] = moe_json(s.moe);
  const ScheduleTotals t = schedule_totals(s);
  ordered groups = ordered::array();
  for (GroupKind g : kAllGroupKinds) {
    const GroupTotals& gt = t.by_group[static_cast<std::size_t>(g)];
    if (gt.ops > 0 && g != GroupKind::strided)
      groups.push_back({{"group", group_kind_name(g)},
                        {"size", group_size(s, g)},
                        {"ops", gt.ops},
                        {"bytes", gt.bytes}});
  }
  for (const auto& [shape, gt] : t.by_strided_group)
    groups.push_back({{"group", group_kind_name(GroupKind::strided)},
                      {"size", shape.first},
                      {"stride", shape.second},
                      {"ops", gt.ops},
                      {"bytes", gt.bytes}});
  j["groups"] = groups;
  j["totals"] = {{"params", t.params},
                 {"active_params", t.active_params},
                 {"allgathers", t.allgathers},
                 {"reduce_scatters", t.reduce_scatters},
                 {"alltoalls", t.alltoalls},
                 {"allgather_bytes", t.allgather_bytes},
                 {"reduce_scatter_bytes", t.reduce_scatter_bytes},
                 {"alltoall_bytes", t.alltoall_bytes},
                 {"allreduces", t.allreduces},
                 {"allreduce_bytes", t.allreduce_bytes},
                 {"broadcasts", t.broadcasts},
                 {"broadcast_bytes", t.broadcast_bytes},
                 {"sends", t.sends},
                 {"send_bytes", t.send_bytes},
                 {"recvs", t.recvs},
                 {"recv_bytes", t.recv_bytes},
                 {"flops", t.flops},
                 {"host_us", t.host_us}};
  ordered kernels = ordered::object();
  for (Phase p : {Phase::forward, Phase::backward, Phase::recompute, Phase::optimizer}) {
    const auto i = static_cast<std::size_t>(p);
    kernels[std::string(phase_name(p))] = {
        {"launches", t.kernel_launches[i]}, {"bytes", t.kernel_bytes[i]}, {"syncs", t.syncs[i]}};
  }
  j["totals"]["kernels"] = kernels;
  // Every compute op with its non-GEMM slices: what the replay runs besides the GEMMs.
  ordered compute_ops = ordered::array();
  for (const ScheduleOp& op : s.ops) {
    if (op.is_collective()) continue;
    ordered list = ordered::array();
    for (const KernelSlice& k : op.compute().kernels) list.push_back(kernel_json(k));
    compute_ops.push_back({{"name", op.name},
                           {"phase", phase_name(op.phase)},
                           {"unit", op.unit},
                           {"gemms", op.compute().gemms.size()},
                           {"gemm_flops", gemm_flops(op.compute().gemms)},
                           {"host_us", op.compute().host_us},
                           {"kernels", list}});
  }
  j["compute_ops"] = compute_ops;
  return j.dump(1) + "\n";
}

}  // namespace collreplay
