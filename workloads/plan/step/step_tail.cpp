#include "workloads/plan/step/step_tail.hpp"

#include <numeric>

#include "common/sizes.hpp"
#include "workloads/plan/distopt/distributed_optimizer.hpp"
#include "workloads/plan/parallel/hsdp.hpp"
#include "workloads/plan/step/optimizer_step.hpp"

namespace collreplay {

void append_summaries(const ResolvedRequest& r, const StepStructure& s,
                      const std::vector<MoeLayerTraffic>& traffic,
                      const std::vector<DdpBucket>& buckets, Schedule& out) {
  const double mbs = r.request.micro_batches;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (r.request.distributed_optimizer) {
      out.units.push_back(distopt_bucket_summary(r, buckets[b], b));
      continue;
    }
    UnitSummary sum;
    sum.name = "bucket" + std::to_string(b);
    sum.params = buckets[b].numel;
    sum.shard_bytes = times(buckets[b].numel, dtype_size_bytes(r.param_dtype));  // DDP holds it all
    const PowerSgdSplit split = r.powersgd_rank > 0 ? powersgd_split(buckets[b], r.powersgd_rank)
                                                    : PowerSgdSplit{buckets[b].numel, 0, 0};
    sum.allreduce_bytes =
        times(split.uncompressed + split.p + split.q, dtype_size_bytes(r.reduce_dtype));
    out.units.push_back(sum);
  }
  for (const Unit& u : s.units) {
    if (r.plan == PlanKind::ddp) break;
    UnitSummary sum;
    sum.name = u.name;
    sum.params = u.params;
    sum.shard_bytes = times(u.gathered_numel / static_cast<std::uint64_t>(u.group_size),
                            dtype_size_bytes(r.param_dtype));
    sum.allgather_bytes = times(u.gathered_numel, dtype_size_bytes(r.param_dtype));
    sum.reduce_scatter_bytes = times(u.gathered_numel, dtype_size_bytes(r.reduce_dtype));
    sum.allreduce_bytes = times(hsdp_allreduce_numel(r, u), dtype_size_bytes(r.reduce_dtype));
    sum.fwd_flops = u.fwd_flops * mbs;
    sum.bwd_flops = (u.bwd_flops + u.recompute_flops) * mbs;
    out.units.push_back(sum);
  }
  const std::uint64_t row_bytes =
      times(static_cast<std::uint64_t>(r.model.hidden), dtype_size_bytes(r.param_dtype));
  const int me = r.request.rank / r.request.tp % r.request.ep;
  for (std::size_t l = 0; l < traffic.size(); ++l) {
    MoeLayerSummary m;
    m.layer = static_cast<int>(l);
    if (r.request.ep > 1 && r.model.moe_layer(static_cast<std::int64_t>(l))) {
      const MoeLayerTraffic& t = traffic[l];
      const std::uint64_t sent =
          std::accumulate(t.send_rows.begin(), t.send_rows.end(), std::uint64_t{0});
      const std::uint64_t recv =
          std::accumulate(t.recv_rows.begin(), t.recv_rows.end(), std::uint64_t{0});
      m.dispatch_send_bytes = times(sent, row_bytes);
      m.dispatch_cross_rank_bytes = times(sent - t.send_rows[me], row_bytes);
      m.combine_send_bytes = times(recv, row_bytes);
      m.combine_cross_rank_bytes = times(recv - t.recv_rows[me], row_bytes);
    }
    out.moe.push_back(m);
  }
}

void append_optimizer_step(const ResolvedRequest& r, const StepStructure& s,
                           const std::vector<DdpBucket>& buckets, std::size_t last_mb,
                           Schedule& out) {
  if (r.request.distributed_optimizer) return append_distopt_step(r, buckets, last_mb, out);
  if (r.optimizer == OptimizerKind::none) return;
  std::uint64_t tensors = 0, numel = 0;
  for (const Unit& u : s.units) {
    tensors += u.param_tensors;
    numel += r.plan == PlanKind::ddp ? u.params
                                     : u.gathered_numel / static_cast<std::uint64_t>(u.group_size);
  }
  ScheduleOp op;
  op.name = "optimizer.step";
  op.stream = StreamKind::compute;
  op.phase = Phase::optimizer;
  op.unit = "optimizer";
  for (std::size_t i = last_mb; i < out.ops.size(); ++i)
    if (out.ops[i].is_collective() && out.ops[i].phase == Phase::backward)
      op.deps.push_back(static_cast<int>(i));
  Work kernels = optimizer_kernels(r.optimizer, tensors, numel, dtype_size_bytes(r.param_dtype));
  // multi_tensor_apply's loop launches each chunk list at the calibrated cost of a launch, which
  // optimizer_host_us charges per launch.
  for (KernelSlice& k : kernels.kernels)
    if (k.kind == KernelKind::multi_tensor) k.host_us_per_launch = r.host_time.optimizer_multi_us;
  op.body = ComputeOp{r.param_dtype,
                      {},
                      kernels.kernels,
                      optimizer_host_us(r.optimizer, kernels, tensors, r.host_time)};
  out.ops.push_back(std::move(op));
}

}  // namespace collreplay
