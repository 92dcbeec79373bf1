#include "workloads/plan/schedule_builder.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "workloads/model/eager_kernels.hpp"
#include "workloads/plan/moe_routing.hpp"
#include "workloads/plan/parallel/ddp_buckets.hpp"
#include "workloads/plan/parallel/hierarchical_a2a.hpp"
#include "workloads/plan/parallel/hsdp.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/plan/parallel/phase_ops.hpp"
#include "workloads/plan/parallel/tensor_parallel.hpp"
#include "workloads/plan/pipeline/pipeline_builder.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step/step_tail.hpp"
#include "workloads/plan/step_structure.hpp"

namespace collreplay {
namespace {

class Builder {
 public:
  Builder(const ResolvedRequest& r, const StepStructure& s,
          const std::vector<MoeLayerTraffic>& traffic, Schedule& out)
      : r_(r), s_(s), traffic_(traffic), out_(out) {
    if (r.plan == PlanKind::ddp) buckets_ = ddp_plan_buckets(r, s);
  }

  const std::vector<DdpBucket>& buckets() const { return buckets_; }

  void micro_batch(int m) {
    prefix_ = r_.request.micro_batches > 1 ? "mb" + std::to_string(m) + "." : "";
    emit(forward(m));
    emit(backward(m));
  }

 private:
  int n_segments() const { return static_cast<int>(s_.segments.size()); }

  // FSDP2 calls no collective on a shard group of one rank (a one-GPU torch 2.11 trace holds
  // none): its copy-out and copy-in kernels are all that remain of the gather and reduction.
  bool skips_collective(const Unit& u) const {
    return r_.plan == PlanKind::fsdp2 && u.group_size == 1;
  }

  ComputeItem compute_item(int seg, Phase phase) const {
    const Segment& g = s_.segments[seg];
    const char* tag = phase_tag(phase);
    ComputeItem c;
    c.name = prefix_ + "compute." + tag + ".s" + std::to_string(seg) + "." + g.label;
    c.unit = s_.units[g.unit].name;
    c.layer = g.layer;
    c.phase = phase;
    c.work = phase == Phase::backward ? g.work.bwd : g.work.fwd;
    return c;
  }

  CommItem gather(const Unit& u, Phase phase) const {
    CommItem c;
    c.name = prefix_ + (phase == Phase::forward ? "ag.fwd." : "ag.bwd.") + u.name;
    c.unit = u.name;
    c.layer = u.layer;
    c.phase = phase;
    c.op.kind = CollectiveKind::all_gather;
    c.op.dtype = r_.param_dtype;
    c.op.group = u.group;
    c.op.bytes = times(u.gathered_numel, dtype_size_bytes(r_.param_dtype));
    c.priority = 1;
    return c;
  }

  // Prefetch rule (README): the all-gather needed by compute item first_use[j] is issued after
  // the item before first_use[j - prefetch] (so at most `prefetch` gathered buffers wait ahead
  // of the compute), and hides behind the item just before its first use.
  void add_gathers(std::vector<std::pair<const Unit*, int>> events, Phase phase, int n_items,
                   PhaseOps& ops) const {
    const int p = r_.request.prefetch;
    for (std::size_t j = 0; j < events.size(); ++j) {
      const int use = events[j].second;
      CommItem c = gather(*events[j].first, phase);
      c.after = static_cast<int>(j) >= p ? events[j - p].second - 1 : -1;
      c.after = std::min(c.after, use - 1);
      c.needed_by = use < n_items ? use : -1;
      c.hides = c.after < use - 1 ? std::min(use - 1, n_items - 1) : -1;
      if (r_.plan == PlanKind::fsdp2 && c.needed_by >= 0)
        ops.compute[c.needed_by].work.prepend(fsdp2_copy_out_kernels(
            c.name, c.op.bytes, events[j].first->param_tensors, events[j].first->group_size == 1));
      if (!skips_collective(*events[j].first)) ops.comm.push_back(c);
    }
  }

  void add_moe(int seg_item_before, int layer, MoeMarker marker, Phase phase,
               const std::string& unit, PhaseOps& ops) const {
    const MoeLayerTraffic& t = traffic_.at(layer);
    const std::string l = ".layers." + std::to_string(layer);
    const char* tag = phase_tag(phase);
    // Backward of a dispatch sends the combine's splits and vice versa.
    const bool dispatch_splits = (marker == MoeMarker::dispatch) == (phase != Phase::backward);
    CommItem c;
    c.unit = unit;
    c.layer = layer;
    c.phase = phase;
    c.after = seg_item_before;
    c.needed_by = seg_item_before + 1;
    // In backward the tensor-parallel all-gather of the block's output gradient (priority 0, same
    // issue point) precedes the combine's backward; ties with all-gathers keep list order.
    c.priority = phase == Phase::backward ? 1 : 0;
    if (marker == MoeMarker::dispatch && phase != Phase::backward) {
      // Megatron's dispatcher all-gathers every rank's per-expert token counts (int64, carried
      // as 2 x fp32 per count) before the dispatch.
      CommItem counts = c;
      counts.name = prefix_ + "ag.counts." + tag + l;
      counts.op.kind = CollectiveKind::all_gather;
      counts.op.dtype = DType::f32;
      counts.op.group = GroupKind::expert;
      counts.op.bytes = times(times(2 * static_cast<std::uint64_t>(r_.model.experts), 4),
                              static_cast<std::uint64_t>(r_.request.ep));
      counts.host_reads_back = true;  // the split sizes, read on the host before the dispatch
      ops.comm.push_back(counts);
    }
    // Dispatch and combine move rows in their own dtypes in forward; gradients in the param dtype.
    const DType dtype = phase == Phase::backward        ? r_.param_dtype
                        : marker == MoeMarker::dispatch ? r_.dispatch_dtype
                                                        : r_.combine_dtype;
    c.name = prefix_ + (marker == MoeMarker::dispatch ? "a2a.dispatch." : "a2a.combine.") + tag + l;
    const auto h = static_cast<std::uint64_t>(r_.model.hidden);
    if (!r_.hierarchical_a2a) {
      c.op = rows_all_to_all(dispatch_splits ? t.send_rows : t.recv_rows,
                             dispatch_splits ? t.recv_rows : t.send_rows, h, dtype,
                             GroupKind::expert, r_.request.pad_to_capacity);
      ops.comm.push_back(c);
      return;
    }
    std::vector<std::vector<std::uint64_t>> rows = t.rows_between;
    if (!dispatch_splits)  // rows travel back: transpose
      for (std::size_t p = 0; p < rows.size(); ++p)
        for (std::size_t q = 0; q < p; ++q) std::swap(rows[p][q], rows[q][p]);
    const MeshLayout mesh{r_.request.world, r_.request.gpus_per_node, r_.request.tp, r_.request.ep,
                          0};
    const std::string base = c.name;
    for (const A2aStage& st : hierarchical_a2a_stages(
             rows, r_.request.rank / r_.request.tp % r_.request.ep, mesh.expert_local())) {
      c.name = base + "." + st.name;
      c.op = rows_all_to_all(st.send_rows, st.recv_rows, h, dtype, st.group, false);
      ops.comm.push_back(c);
    }
  }

  PhaseOps forward(int mb) const {
    PhaseOps ops;
    const int n = n_segments();
    for (int k = 0; k < n; ++k) ops.compute.push_back(compute_item(k, Phase::forward));
    std::vector<std::pair<const Unit*, int>> events;
    for (const Unit& u : s_.units)
      if (u.gathered_numel > 0 && r_.plan != PlanKind::ddp) events.emplace_back(&u, u.entry_seg);
    add_gathers(events, Phase::forward, n, ops);
    if (r_.plan == PlanKind::ddp) add_ddp_forward_items(r_, buckets_, mb, prefix_, ops);
    for (int k = 0; k < n; ++k)
      if (s_.segments[k].after != MoeMarker::none)
        add_moe(k, s_.segments[k].layer, s_.segments[k].after, Phase::forward,
                s_.units[s_.segments[k].unit].name, ops);
    std::vector<int> item_seg(n);
    std::iota(item_seg.begin(), item_seg.end(), 0);
    add_tensor_parallel_items(r_, s_, item_seg, true, prefix_, ops);
    return ops;
  }

  PhaseOps backward(int mb) const {
    PhaseOps ops;
    const int n = n_segments();
    std::vector<int> item_seg, bwd_item(n, -1);
    auto push = [&](int seg, Phase phase) {
      ops.compute.push_back(compute_item(seg, phase));
      item_seg.push_back(seg);
      if (phase == Phase::backward) bwd_item[seg] = static_cast<int>(item_seg.size()) - 1;
    };
    auto last_item = [&] { return static_cast<int>(item_seg.size()) - 1; };
    // Activation checkpointing per decoder layer: the layer's forward runs again (all-to-alls
    // included) right before its backward.
    for (int i = n - 1; i >= 0;) {
      const int layer = s_.segments[i].layer;
      int j = i;
      if (r_.request.activation_checkpointing && layer >= 0) {
        while (j > 0 && s_.segments[j - 1].layer == layer) --j;
        for (int k = j; k <= i; ++k) {
          push(k, Phase::recompute);
          if (s_.segments[k].after != MoeMarker::none)
            add_moe(last_item(), layer, s_.segments[k].after, Phase::recompute,
                    s_.units[s_.segments[k].unit].name, ops);
        }
      }
      for (int k = i; k >= j; --k) {
        if (s_.segments[k].after != MoeMarker::none)
          add_moe(last_item(), s_.segments[k].layer, s_.segments[k].after, Phase::backward,
                  s_.units[s_.segments[k].unit].name, ops);
        push(k, Phase::backward);
      }
      i = j - 1;
    }
    const int items = static_cast<int>(item_seg.size());
    for (CommItem& c : ops.comm)
      if (c.needed_by >= items) c.needed_by = -1;
    add_tensor_parallel_items(r_, s_, item_seg, false, prefix_, ops);
    if (r_.plan == PlanKind::ddp) {
      add_ddp_items(r_, buckets_, mb, bwd_item, items, prefix_, ops);
      return ops;
    }

    if (r_.full_shard) {
      // Every non-root unit was freed after forward: gather it again before its first backward
      // use (the recompute of its layer when checkpointing).
      std::vector<std::pair<const Unit*, int>> events;
      for (const Unit& u : s_.units) {
        if (u.root || u.gathered_numel == 0) continue;
        int first = items;
        for (int it = 0; it < items; ++it)
          if (item_seg[it] >= u.entry_seg && item_seg[it] <= u.exit_seg) {
            first = it;
            break;
          }
        if (u.entry_seg > u.exit_seg) first = bwd_item[std::min(u.entry_seg, n - 1)] + 1;
        events.emplace_back(&u, first);
      }
      std::stable_sort(events.begin(), events.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
      add_gathers(events, Phase::backward, items, ops);
    }
    for (const Unit& u : s_.units) {
      if (u.gathered_numel == 0) continue;
      CommItem c;
      c.name = prefix_ + "rs." + u.name;
      c.unit = u.name;
      c.layer = u.layer;
      c.phase = Phase::backward;
      c.op.kind = CollectiveKind::reduce_scatter;
      c.op.dtype = r_.reduce_dtype;
      c.op.group = u.group;
      c.op.bytes = times(u.gathered_numel, dtype_size_bytes(r_.reduce_dtype));
      c.after = bwd_item[u.grad_seg];
      c.hides = c.after + 1 < items ? c.after + 1 : -1;
      c.priority = 2;
      if (r_.plan == PlanKind::fsdp2)
        ops.compute[c.after].work.append(fsdp2_copy_in_kernels(
            c.name, times(u.gathered_numel, dtype_size_bytes(r_.param_dtype)), c.op.bytes,
            skips_collective(u)));
      if (!skips_collective(u)) ops.comm.push_back(c);
      add_hsdp_allreduce(r_, u, c, ops);
    }
    return ops;
  }

  // Orders a phase: each compute item, then the comm ops issued once it is done; comm ops
  // queue on the comm stream in that order (the stream is FIFO).
  void emit(PhaseOps ops) {
    std::stable_sort(ops.comm.begin(), ops.comm.end(), [](const CommItem& a, const CommItem& b) {
      return a.after != b.after ? a.after < b.after : a.priority < b.priority;
    });
    const int n = static_cast<int>(ops.compute.size());
    enum class Slot { compute, comm, read_back };  // read_back: the host waits on comm item idx
    std::vector<std::pair<Slot, int>> order;
    std::size_t next = 0;
    for (int i = -1; i < n; ++i) {
      if (i >= 0) order.emplace_back(Slot::compute, i);
      for (; next < ops.comm.size() && ops.comm[next].after == i; ++next) {
        order.emplace_back(Slot::comm, static_cast<int>(next));
        if (ops.comm[next].host_reads_back)
          order.emplace_back(Slot::read_back, static_cast<int>(next));
      }
    }
    const int base = static_cast<int>(out_.ops.size());
    std::vector<int> compute_index(n), comm_index(ops.comm.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      const auto [slot, idx] = order[pos];
      if (slot != Slot::read_back)
        (slot == Slot::compute ? compute_index[idx] : comm_index[idx]) =
            base + static_cast<int>(pos);
    }
    // Compute and comm items carry the same labels under the same names.
    auto label = [](ScheduleOp& op, const auto& item, StreamKind stream) {
      op.name = item.name;
      op.stream = stream;
      op.phase = item.phase;
      op.unit = item.unit;
      op.layer = item.layer;
    };
    const auto per_launch_us = [&](Phase phase) {
      return phase == Phase::forward ? r_.host_time.forward_us : r_.host_time.backward_us;
    };
    for (const auto& [slot, idx] : order) {
      ScheduleOp op;
      if (slot == Slot::compute) {
        const ComputeItem& c = ops.compute[idx];
        label(op, c, StreamKind::compute);
        for (std::size_t k = 0; k < ops.comm.size(); ++k)
          if (ops.comm[k].needed_by == idx) op.deps.push_back(comm_index[k]);
        std::sort(op.deps.begin(), op.deps.end());
        // The pass's own host cost goes on its first compute op (spread over that op's
        // launches, as every op's host time is).
        const double pass_us = idx != 0                    ? 0
                               : c.phase == Phase::forward ? r_.host_time.forward_fixed_us
                                                           : r_.host_time.backward_fixed_us;
        op.body = ComputeOp{
            r_.param_dtype, c.work.gemms, c.work.kernels,
            pass_us + static_cast<double>(c.work.launches()) * per_launch_us(c.phase)};
      } else if (slot == Slot::read_back) {
        const CommItem& c = ops.comm[idx];
        label(op, c, StreamKind::compute);
        op.name = "host_sync." + c.name;
        op.deps.push_back(comm_index[idx]);
        Work w;
        host_sync(w, c.name, "result read on the host (.tolist()): host waits");
        op.body = ComputeOp{r_.param_dtype, {}, w.kernels,
                            static_cast<double>(w.launches()) * per_launch_us(c.phase)};
      } else {
        const CommItem& c = ops.comm[idx];
        label(op, c, StreamKind::comm);
        if (c.after >= 0) op.deps.push_back(compute_index[c.after]);
        if (const int waits = comm_named(ops, comm_index, c.after_comm); waits >= 0)
          op.deps.push_back(waits);
        std::sort(op.deps.begin(), op.deps.end());
        op.hides_behind = c.hides >= 0 ? compute_index[c.hides] : -1;
        op.body = c.op;
      }
      out_.ops.push_back(std::move(op));
    }
  }

  // The schedule index of the comm item named `name` (it sorts earlier: a lower priority at the
  // same issue point); -1 for "" or one the phase does not issue (a skipped collective).
  static int comm_named(const PhaseOps& ops, const std::vector<int>& comm_index,
                        const std::string& name) {
    if (name.empty()) return -1;
    for (std::size_t k = 0; k < ops.comm.size(); ++k)
      if (ops.comm[k].name == name) return comm_index[k];
    return -1;
  }

  const ResolvedRequest& r_;
  const StepStructure& s_;
  const std::vector<MoeLayerTraffic>& traffic_;
  Schedule& out_;
  std::string prefix_;
  std::vector<DdpBucket> buckets_;
};

std::vector<MoeLayerTraffic> route_all_layers(const ResolvedRequest& r) {
  std::vector<MoeLayerTraffic> traffic;
  if (!r.model.is_moe()) return traffic;
  const WorkloadRequest& q = r.request;
  for (int l = 0; l < r.layers; ++l) {
    RoutingInput in{
        r.routing, q.seed, l, static_cast<int>(r.model.experts), static_cast<int>(r.model.top_k),
        r.tokens};
    traffic.push_back(
        moe_layer_traffic(in, MoeTrafficOptions{q.ep, q.rank / q.tp, q.capacity_factor,
                                                q.pad_to_capacity, q.replicate_hot}));
  }
  return traffic;
}

}  // namespace

Schedule build_schedule(const WorkloadRequest& request) {
  if (request.pipeline.asked()) return build_pipeline_schedule(request);
  const ResolvedRequest r = resolve_request(request);
  const std::vector<MoeLayerTraffic> traffic = route_all_layers(r);
  const StepStructure s = build_step_structure(r, traffic);
  Schedule out;
  out.model = r.model.name;
  out.plan = request.plan;
  out.tp = r.request.tp;
  out.shard_group = r.shard_group;
  out.wrap = request.wrap;
  out.world = request.world;
  out.gpus_per_node = request.gpus_per_node;
  out.ep = r.request.ep;
  out.rank = request.rank;
  out.micro_batch = request.micro_batch;
  out.seq = request.seq;
  out.micro_batches = request.micro_batches;
  // A TP group shares its micro-batches: each rank's share of the tokens.
  out.tokens_per_step = times(r.tokens, static_cast<std::uint64_t>(request.micro_batches)) /
                        static_cast<std::uint64_t>(r.request.tp);
  const ModelTotals totals = model_totals(r.model, r.layers);
  out.model_params = totals.params;
  out.active_params = totals.active_params;
  Builder b(r, s, traffic, out);
  std::size_t last_mb = 0;
  for (int m = 0; m < request.micro_batches; ++m) {
    last_mb = out.ops.size();
    b.micro_batch(m);
  }
  append_optimizer_step(r, s, b.buckets(), last_mb, out);
  append_summaries(r, s, traffic, b.buckets(), out);
  return out;
}

}  // namespace collreplay
