#include "workloads/plan/distopt/distributed_optimizer.hpp"

#include <algorithm>
#include <numeric>

#include "common/errors.hpp"
#include "workloads/plan/step/optimizer_step.hpp"

namespace collreplay {
namespace {

// megatron/core/optimizer/param_layout.py: pad_param_start (64 elements) and pad_bucket_end
// (lcm(DP, 128); pad_buckets_for_high_nccl_busbw, off by default, would add 2^16).
constexpr std::uint64_t kParamAlign = 64, kBucketAlign = 128;
// resolve_ddp_bucket_size: max(40,000,000, 1,000,000 x DP) parameters.
constexpr std::uint64_t kMinBucket = 40000000, kBucketPerRank = 1000000;

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

void require(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

// A bucket being filled: where it starts in the buffer and where each parameter lies.
struct OpenBucket {
  DdpBucket bucket;
  std::uint64_t start = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [start, end) in the buffer
};

// Closes `open` at `end` (padded) and counts what of it falls in the shard of `dp_rank`.
DdpBucket close(OpenBucket& open, std::uint64_t end, int dp, int dp_rank) {
  DdpBucket b = std::move(open.bucket);
  b.padded_numel = end - open.start;
  const std::uint64_t shard = b.padded_numel / static_cast<std::uint64_t>(dp);
  const std::uint64_t lo = open.start + shard * static_cast<std::uint64_t>(dp_rank), hi = lo + shard;
  for (const auto& [s, e] : open.ranges) {
    if (e <= lo || s >= hi) continue;
    ++b.shard_params;  // _build_model_gbuf_param_range_map: a main parameter per overlap
    b.shard_numel += std::min(e, hi) - std::max(s, lo);
  }
  return b;
}

}  // namespace

void check_distributed_optimizer(const ResolvedRequest& r) {
  const WorkloadRequest& q = r.request;
  require(q.ddp_bucket_size >= 0, "--ddp-bucket-size must not be negative");
  require(q.ddp_bucket_size == 0 || q.distributed_optimizer,
          "--ddp-bucket-size needs --distributed-optimizer (--bucket-cap-mb sizes torch DDP's)");
  if (!q.distributed_optimizer) return;
  require(r.plan == PlanKind::ddp,
          "--distributed-optimizer needs --plan ddp (Megatron's DistributedDataParallel with "
          "use_distributed_optimizer; FSDP shards the optimizer states already)");
  require(r.powersgd_rank == 0, "--grad-compression does not apply to --distributed-optimizer");
}

int distopt_data_parallel(const ResolvedRequest& r) { return r.replicas * r.shard_group; }

std::uint64_t distopt_bucket_elements(const ResolvedRequest& r) {
  if (r.request.ddp_bucket_size > 0) return static_cast<std::uint64_t>(r.request.ddp_bucket_size);
  return std::max(kMinBucket,
                  kBucketPerRank * static_cast<std::uint64_t>(distopt_data_parallel(r)));
}

// DistributedOptimizer._compute_per_buffer_param_layout: no shared_embedding split (it is set
// only for a tied embedding split over pipeline stages).
std::vector<DdpBucket> distopt_buckets(const ResolvedRequest& r, const StepStructure& s,
                                       std::uint64_t bucket_elements) {
  const int dp = distopt_data_parallel(r);
  const int dp_rank = r.request.rank / r.request.tp % dp;
  const std::uint64_t end_align = std::lcm(static_cast<std::uint64_t>(dp), kBucketAlign);
  std::vector<DdpBucket> buckets;
  OpenBucket open;
  open.bucket.grad_seg = static_cast<int>(s.segments.size());
  std::uint64_t param_start = 0;
  for (const auto& [p, node] : gradient_order(s)) {
    param_start = round_up(param_start, kParamAlign);
    const std::uint64_t param_end = checked_add(param_start, p->numel(), "bucket size");
    open.bucket.params.push_back(p);
    open.bucket.numel += p->numel();
    open.bucket.grad_seg = std::min(open.bucket.grad_seg, std::max(s.node_grad_seg[node], 0));
    open.ranges.emplace_back(param_start, param_end);
    param_start = param_end;
    if (bucket_elements > 0 && param_end - open.start >= bucket_elements) {
      const std::uint64_t end = round_up(param_end, end_align);
      buckets.push_back(close(open, end, dp, dp_rank));
      open = OpenBucket{};
      open.bucket.grad_seg = static_cast<int>(s.segments.size());
      open.start = param_start = end;
    }
  }
  if (!open.ranges.empty()) buckets.push_back(close(open, round_up(param_start, end_align), dp, dp_rank));
  return buckets;
}

void add_distopt_gathers(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                         const std::string& prefix, PhaseOps& ops) {
  const int n = static_cast<int>(buckets.size());
  std::vector<int> comm_of(n, -1);
  const auto issue = [&](int b, int after) {
    CommItem c;
    c.name = prefix + "ag.fwd.bucket" + std::to_string(b);
    c.unit = "bucket" + std::to_string(b);
    c.phase = Phase::forward;
    c.op.kind = CollectiveKind::all_gather;
    c.op.dtype = r.param_dtype;
    c.op.group = dense_replica_group(r);
    c.op.bytes = times(buckets[b].padded_numel, dtype_size_bytes(r.param_dtype));
    c.after = after;
    c.priority = 1;
    comm_of[b] = static_cast<int>(ops.comm.size());
    ops.comm.push_back(c);
  };
  // The pre-hooks fire in forward order; within one segment the chain's order (last bucket first).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return buckets[a].grad_seg != buckets[b].grad_seg ? buckets[a].grad_seg < buckets[b].grad_seg
                                                      : a > b;
  });
  for (int b : order) {
    const int use = buckets[b].grad_seg;
    if (comm_of[b] < 0) issue(b, use - 1);  // nothing dispatched it: the hook does, then waits
    CommItem& c = ops.comm[comm_of[b]];
    c.needed_by = use;
    c.hides = c.after < use - 1 ? use - 1 : -1;
    if (b > 0 && comm_of[b - 1] < 0) issue(b - 1, use - 1);  // next_param_gather_bucket_group
  }
}

void add_distopt_reduce_scatters(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                                 const std::vector<int>& bwd_item, int items,
                                 const std::string& prefix, PhaseOps& ops) {
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    CommItem c;
    c.unit = "bucket" + std::to_string(b);
    c.name = prefix + "rs." + c.unit;
    c.phase = Phase::backward;
    c.op.kind = CollectiveKind::reduce_scatter;
    c.op.dtype = r.reduce_dtype;
    c.op.group = dense_replica_group(r);
    c.op.bytes = times(buckets[b].padded_numel, dtype_size_bytes(r.reduce_dtype));
    c.after = bwd_item[buckets[b].grad_seg];
    c.hides = c.after + 1 < items ? c.after + 1 : -1;
    c.priority = 2;
    ops.comm.push_back(c);
  }
}

void append_distopt_step(const ResolvedRequest& r, const std::vector<DdpBucket>& buckets,
                         std::size_t last_mb, Schedule& out) {
  if (r.optimizer == OptimizerKind::none) return;
  std::uint64_t tensors = 0, numel = 0;
  for (const DdpBucket& b : buckets) {
    tensors += b.shard_params;
    numel += b.shard_numel;
  }
  ScheduleOp op;
  op.name = "optimizer.step";
  op.stream = StreamKind::compute;
  op.phase = Phase::optimizer;
  op.unit = "optimizer";
  for (std::size_t i = last_mb; i < out.ops.size(); ++i)
    if (out.ops[i].is_collective() && out.ops[i].phase == Phase::backward)
      op.deps.push_back(static_cast<int>(i));
  constexpr std::uint64_t kFp32 = 4;
  Work w;
  const auto per_piece = [&](const char* what, std::uint64_t read, std::uint64_t write) {
    KernelSlice k;
    k.kind = KernelKind::generic;  // dtype-converting copy_, a launch per shard piece
    k.label = std::string("distributed optimizer: ") + what;
    k.launches = tensors;
    k.elements = numel;
    k.read_bytes = read * numel;
    k.write_bytes = write * numel;
    w.add_kernel(std::move(k));
  };
  const std::uint64_t grad = dtype_size_bytes(r.reduce_dtype), param = dtype_size_bytes(r.param_dtype);
  if (grad != kFp32) per_piece("gradient shard .float()", grad, kFp32);
  const Work adam = optimizer_kernels(r.optimizer, tensors, numel, kFp32);
  w.append(adam);
  for (KernelSlice& k : w.kernels)
    if (k.kind == KernelKind::multi_tensor) k.host_us_per_launch = r.host_time.optimizer_multi_us;
  per_piece("fp32 main shard copied into the parameter buffer", kFp32, param);
  const double copies_us = static_cast<double>(tensors) * r.host_time.optimizer_loop_us *
                           (grad != kFp32 ? 2 : 1);
  op.body = ComputeOp{r.param_dtype, {}, w.kernels,
                      optimizer_host_us(r.optimizer, adam, tensors, r.host_time) + copies_us};
  out.ops.push_back(std::move(op));
}

UnitSummary distopt_bucket_summary(const ResolvedRequest& r, const DdpBucket& bucket,
                                   std::size_t b) {
  UnitSummary u;
  u.name = "bucket" + std::to_string(b);
  u.params = bucket.numel;
  const auto dp = static_cast<std::uint64_t>(distopt_data_parallel(r));
  u.shard_bytes = times(bucket.padded_numel / dp, dtype_size_bytes(r.param_dtype));
  u.allgather_bytes = times(bucket.padded_numel, dtype_size_bytes(r.param_dtype));
  u.reduce_scatter_bytes = times(bucket.padded_numel, dtype_size_bytes(r.reduce_dtype));
  return u;
}

}  // namespace collreplay
