#include "workloads/plan/parallel/ddp_buckets.hpp"

#include <algorithm>

#include "workloads/plan/distopt/distributed_optimizer.hpp"

namespace collreplay {
namespace {

constexpr std::uint64_t kFirstBucketBytes = 1024 * 1024;  // dist._DEFAULT_FIRST_BUCKET_BYTES

void registration_order(const ModuleTree& t, int id,
                        std::vector<std::pair<const ParamTensor*, int>>& out) {
  for (const ParamTensor& p : t.nodes[id].params) out.emplace_back(&p, id);
  for (int c : t.nodes[id].children) registration_order(t, c, out);
}

}  // namespace

std::vector<std::pair<const ParamTensor*, int>> gradient_order(const StepStructure& s) {
  std::vector<std::pair<const ParamTensor*, int>> params;
  registration_order(s.tree, 0, params);
  std::reverse(params.begin(), params.end());
  return params;
}

std::vector<DdpBucket> ddp_buckets(const StepStructure& s, DType grad_dtype, double cap_mb) {
  const std::vector<std::pair<const ParamTensor*, int>> params = gradient_order(s);
  const auto cap_bytes = static_cast<std::uint64_t>(cap_mb * 1024 * 1024);
  std::vector<DdpBucket> buckets;
  DdpBucket open;
  open.grad_seg = static_cast<int>(s.segments.size());
  std::uint64_t open_bytes = 0;
  for (const auto& [p, node] : params) {
    open.params.push_back(p);
    open.numel = checked_add(open.numel, p->numel(), "bucket size");
    open_bytes =
        checked_add(open_bytes, times(p->numel(), dtype_size_bytes(grad_dtype)), "bucket bytes");
    open.grad_seg = std::min(open.grad_seg, std::max(s.node_grad_seg[node], 0));
    if (open_bytes >= (buckets.empty() ? kFirstBucketBytes : cap_bytes)) {
      buckets.push_back(open);
      open = DdpBucket{};
      open.grad_seg = static_cast<int>(s.segments.size());
      open_bytes = 0;
    }
  }
  if (!open.params.empty()) buckets.push_back(open);
  return buckets;
}

std::vector<DdpBucket> ddp_plan_buckets(const ResolvedRequest& r, const StepStructure& s) {
  if (r.request.distributed_optimizer) return distopt_buckets(r, s, distopt_bucket_elements(r));
  return ddp_buckets(s, r.reduce_dtype, r.request.bucket_cap_mb);
}

PowerSgdSplit powersgd_split(const DdpBucket& bucket, int rank) {
  PowerSgdSplit split;
  for (const ParamTensor* p : bucket.params) {
    const auto rows = static_cast<std::uint64_t>(p->shape.at(0));
    const std::uint64_t cols = rows == 0 ? 0 : p->numel() / rows;
    const std::uint64_t r = std::min({rows, cols, static_cast<std::uint64_t>(rank)});
    if ((rows + cols) * r * 2 < rows * cols) {
      split.p += rows * r;
      split.q += cols * r;
    } else {
      split.uncompressed += p->numel();
    }
  }
  return split;
}

void add_ddp_buffer_broadcast(const ResolvedRequest& r, const std::string& prefix, PhaseOps& ops) {
  const auto inv_freq = static_cast<std::uint64_t>(r.model.rotary_dim() / 2);
  if (inv_freq == 0 || ops.compute.empty()) return;
  CommItem c;
  c.name = prefix + "bcast.buffers";
  c.unit = ops.compute.front().unit;
  c.phase = Phase::forward;
  c.op.kind = CollectiveKind::broadcast;
  c.op.dtype = DType::f32;
  c.op.group = dense_replica_group(r);
  c.op.bytes = times(inv_freq, dtype_size_bytes(DType::f32));
  c.op.root = 0;
  c.needed_by = 0;
  ops.comm.push_back(c);
}

void add_ddp_forward_items(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets, int mb,
                           const std::string& prefix, PhaseOps& ops) {
  if (!r.request.distributed_optimizer)
    add_ddp_buffer_broadcast(r, prefix, ops);
  else if (mb == 0)
    add_distopt_gathers(r, buckets, prefix, ops);
}

void add_ddp_items(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets, int mb,
                   const std::vector<int>& bwd_item, int items, const std::string& prefix,
                   PhaseOps& ops) {
  if (r.request.distributed_optimizer) {
    if (mb + 1 == r.request.micro_batches)
      add_distopt_reduce_scatters(r, buckets, bwd_item, items, prefix, ops);
    return;
  }
  const std::uint64_t element = dtype_size_bytes(r.reduce_dtype);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    CommItem c;
    c.unit = "bucket" + std::to_string(b);
    c.phase = Phase::backward;
    c.op.kind = CollectiveKind::all_reduce;
    c.op.dtype = r.reduce_dtype;
    c.op.group = dense_replica_group(r);
    c.after = bwd_item[buckets[b].grad_seg];
    c.hides = c.after + 1 < items ? c.after + 1 : -1;
    c.priority = 2;
    auto push = [&](const std::string& suffix, std::uint64_t numel) {
      if (numel == 0) return;  // PyTorch all-reduces an empty tensor: nothing moves
      c.name = prefix + "ar." + c.unit + suffix;
      c.op.bytes = times(numel, element);
      ops.comm.push_back(c);
    };
    if (r.powersgd_rank == 0) {
      push("", buckets[b].numel);
      continue;
    }
    const PowerSgdSplit split = powersgd_split(buckets[b], r.powersgd_rank);
    push(".uncompressed", split.uncompressed);
    push(".p", split.p);
    push(".q", split.q);
  }
}

}  // namespace collreplay
