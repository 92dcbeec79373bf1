#include "workloads/plan/pipeline/pipeline_builder.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "common/errors.hpp"
#include "common/sizes.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/plan/pipeline/pipeline_order.hpp"
#include "workloads/plan/pipeline/pipeline_plan.hpp"
#include "workloads/plan/pipeline/stage_groups.hpp"
#include "workloads/plan/pipeline/stage_pieces.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

using Kind = PipeAction::Kind;

// The request one stage is built from: the stage's own ranks, this rank's place among them.
WorkloadRequest stage_request(const WorkloadRequest& q, int stage_world, const StageSpan& span) {
  WorkloadRequest s = q;
  s.world = stage_world;
  s.rank = q.rank % stage_world;
  s.pipeline = PipelineRequest{};
  s.pipeline.stage = span;
  if (span.restricted()) s.layers = span.first_layer + span.layers;
  return s;
}

struct Chunk {
  int stage = 0;
  std::string prefix;  // "stage<k>." when a rank holds several stages
  Schedule built;
  StagePieces pieces;
};

std::vector<std::pair<bool, int>> block_order(const std::vector<PipeAction>& actions, int chunk) {
  std::vector<std::pair<bool, int>> order;
  for (const PipeAction& a : actions)
    if (a.chunk == chunk && (a.kind == Kind::forward || a.kind == Kind::backward))
      order.emplace_back(a.kind == Kind::forward, a.mb);
  return order;
}

class Assembler {
 public:
  Assembler(const PipelinePlan& plan, int rank, std::vector<Chunk>& chunks, CollectiveOp p2p,
            Schedule& out)
      : plan_(plan), rank_(rank), chunks_(chunks), p2p_(p2p), out_(out), placed_(chunks.size()) {
    // Interleaved, Megatron launches a model chunk's parameter all-gathers (distributed
    // optimizer) ahead of its first forward (param_sync_func in forward_step_helper: chunk c + 1's
    // when the virtual micro-batch pipeline-rank steps before chunk c's first; chunks 0 and 1 at
    // the step's start).
    hoisted_.resize(chunks.size());
    if (plan.virtual_stages > 1)
      for (std::size_t v = 0; v < chunks.size(); ++v) {
        const std::vector<ScheduleOp>& ops = chunks[v].pieces.forward.front().ops;
        for (std::size_t i = 0; i < ops.size(); ++i)
          if (ops[i].is_collective() && ops[i].name.find("ag.fwd.bucket") != std::string::npos)
            hoisted_[v].push_back(static_cast<int>(i));
      }
  }

  void run(const std::vector<PipeAction>& actions) {
    std::vector<int> op_of(actions.size(), -1);
    int forwards = 0;
    for (std::size_t i = 0; i < actions.size(); ++i) {
      const PipeAction& a = actions[i];
      for (int w : a.waits) pending_.push_back(op_of[static_cast<std::size_t>(w)]);
      Chunk& c = chunks_[static_cast<std::size_t>(a.chunk)];
      switch (a.kind) {
        case Kind::forward:
        case Kind::backward: {
          const bool fwd = a.kind == Kind::forward;
          if (fwd) launch_gathers(forwards++);
          if (!fwd && a.mb == last_backward(a.chunk)) sync_from_[a.chunk] = size();
          auto& blocks = fwd ? c.pieces.forward : c.pieces.backward;
          produced_[{a.chunk, !fwd, a.mb}] =
              append(blocks.at(static_cast<std::size_t>(a.mb)), c,
                     fwd && a.mb == 0 ? &placed_[static_cast<std::size_t>(a.chunk)] : nullptr);
          break;
        }
        case Kind::send:
        case Kind::recv: op_of[i] = add_p2p(a, c); break;
        case Kind::reduce_grad: append(c.pieces.reduce, c); break;
        case Kind::end: finish(); break;
      }
    }
  }

 private:
  int size() const { return static_cast<int>(out_.ops.size()); }

  int last_backward(int chunk) const {
    return static_cast<int>(chunks_[static_cast<std::size_t>(chunk)].pieces.backward.size()) - 1;
  }

  // Before the `k`-th forward of the rank: the hoisted all-gathers of the chunks launched there.
  void launch_gathers(int k) {
    for (std::size_t v = 0; v < hoisted_.size(); ++v) {
      const int at = v <= 1 ? 0 : std::max(0, (static_cast<int>(v) - 1) * plan_.pp - rank_);
      if (at != k) continue;
      std::vector<ScheduleOp>& ops = chunks_[v].pieces.forward.front().ops;
      for (int i : hoisted_[v]) {
        ScheduleOp op = ops[static_cast<std::size_t>(i)];
        op.name = chunks_[v].prefix + op.name;
        op.unit = chunks_[v].prefix + op.unit;
        op.deps.clear();  // launched ahead: the data-parallel stream runs them in this order
        op.hides_behind = -1;
        placed_[v][i] = size();
        out_.ops.push_back(std::move(op));
      }
    }
  }

  // Appends the block (its ops moved: each block runs once) but for the ops already placed
  // (`placed`: their indices in the schedule); its first compute op takes the pending waits.
  // Returns its last compute op.
  int append(OpBlock& block, const Chunk& c, const std::map<int, int>* placed = nullptr) {
    std::vector<int> index(block.ops.size());
    for (std::size_t i = 0, next = out_.ops.size(); i < block.ops.size(); ++i) {
      const auto found = placed ? placed->find(static_cast<int>(i)) : std::map<int, int>::const_iterator{};
      index[i] = placed && found != placed->end() ? found->second : static_cast<int>(next++);
    }
    const int first = block.first_compute(), last = block.last_compute();
    for (std::size_t i = 0; i < block.ops.size(); ++i) {
      if (placed && placed->count(static_cast<int>(i))) continue;
      ScheduleOp op = std::move(block.ops[i]);
      op.name = c.prefix + op.name;
      op.unit = c.prefix + op.unit;
      for (int& d : op.deps) d = index[static_cast<std::size_t>(d)];
      std::sort(op.deps.begin(), op.deps.end());
      if (op.hides_behind >= 0) op.hides_behind = index[static_cast<std::size_t>(op.hides_behind)];
      if (static_cast<int>(i) == first) take_pending(op);
      out_.ops.push_back(std::move(op));
    }
    return last < 0 ? -1 : index[static_cast<std::size_t>(last)];
  }

  void take_pending(ScheduleOp& op) {
    op.deps.insert(op.deps.end(), pending_.begin(), pending_.end());
    std::sort(op.deps.begin(), op.deps.end());
    op.deps.erase(std::unique(op.deps.begin(), op.deps.end()), op.deps.end());
    pending_.clear();
  }

  int add_p2p(const PipeAction& a, const Chunk& c) {
    ScheduleOp op;
    const bool send = a.kind == Kind::send;
    op.name = c.prefix + "pp." + (send ? "send." : "recv.") + (a.gradient ? "bwd" : "fwd") +
              ".mb" + std::to_string(a.mb);
    op.stream = StreamKind::comm;
    op.phase = a.gradient ? Phase::backward : Phase::forward;
    op.unit = "stage" + std::to_string(c.stage);
    CollectiveOp body = p2p_;
    body.kind = send ? CollectiveKind::send : CollectiveKind::recv;
    body.peer = peer_stage(plan_, rank_, a) % plan_.pp;
    op.body = body;
    // A send carries what its compute produced; a new batch_isend_irecv call waits for the last.
    if (send) op.deps.push_back(produced_.at({a.chunk, a.gradient, a.mb}));
    if (a.batch != batch_ && last_p2p_ >= 0) op.deps.push_back(last_p2p_);
    std::sort(op.deps.begin(), op.deps.end());
    batch_ = a.batch;
    last_p2p_ = size();
    out_.ops.push_back(std::move(op));
    return last_p2p_;
  }

  // The optimizer of every stage of the rank, after its gradients are synchronised (every
  // collective from its last backward on) and after the waits left.
  void finish() {
    for (std::size_t v = 0; v < chunks_.size(); ++v) {
      for (ScheduleOp op : chunks_[v].pieces.tail) {
        op.name = chunks_[v].prefix + op.name;
        op.unit = chunks_[v].prefix + op.unit;
        const std::string& prefix = chunks_[v].prefix;
        for (int i = sync_from_.at(static_cast<int>(v)); i < size(); ++i)
          if (out_.ops[i].is_collective() && out_.ops[i].name.rfind(prefix + "pp.", 0) != 0 &&
              out_.ops[i].name.rfind(prefix, 0) == 0)
            op.deps.push_back(i);
        take_pending(op);
        out_.ops.push_back(std::move(op));
      }
    }
  }

  const PipelinePlan& plan_;
  int rank_;
  std::vector<Chunk>& chunks_;
  CollectiveOp p2p_;
  Schedule& out_;
  std::vector<int> pending_;
  std::map<std::tuple<int, bool, int>, int> produced_;  // (chunk, gradient?, mb) -> last compute
  std::map<int, int> sync_from_;  // chunk -> where its last backward starts
  int batch_ = -1, last_p2p_ = -1;
  std::vector<std::vector<int>> hoisted_;  // per chunk: ops of its first forward launched ahead
  std::vector<std::map<int, int>> placed_;  // per chunk: those placed, op -> schedule index
};

}  // namespace

PipelinePlan request_pipeline_plan(const WorkloadRequest& q) {
  check_pipeline_flags(q);
  const int stage_world = q.world / q.pipeline.pp;
  return plan_pipeline(q, resolve_request(stage_request(q, stage_world, StageSpan{})).layers);
}

Schedule build_pipeline_schedule(const WorkloadRequest& q) {
  check_pipeline_flags(q);
  const int stage_world = q.world / q.pipeline.pp;
  // Every other flag checked as one stage sees it; the model's decoder layers (after --layers).
  const ResolvedRequest whole = resolve_request(stage_request(q, stage_world, StageSpan{}));
  const PipelinePlan plan = plan_pipeline(q, whole.layers);
  const int rank = plan.pipeline_rank(q.rank);
  const std::vector<PipeAction> actions = pipeline_actions(plan, rank);

  std::vector<Chunk> chunks(static_cast<std::size_t>(plan.virtual_stages));
  for (int v = 0; v < plan.virtual_stages; ++v) {
    Chunk& c = chunks[static_cast<std::size_t>(v)];
    c.stage = plan.stage_of(rank, v);
    c.prefix = plan.virtual_stages > 1 ? "stage" + std::to_string(c.stage) + "." : "";
    // Two micro-batches stand for the step's (stage_pieces.hpp): the rest are alike.
    WorkloadRequest sq =
        stage_request(q, stage_world, plan.stages[static_cast<std::size_t>(c.stage)]);
    sq.micro_batches = std::min(q.micro_batches, 2);
    // Megatron's DDP buckets only the first pipeline rank's first model chunk: the others keep
    // one bucket (bucket_size None off the first stage, disable_bucketing for later chunks).
    if (sq.distributed_optimizer && (rank > 0 || v > 0))
      sq.ddp_bucket_size = std::numeric_limits<std::int64_t>::max();
    c.built = build_schedule(sq);
    const MeshLayout mesh{stage_world, q.gpus_per_node, c.built.tp, c.built.ep,
                          c.built.shard_group};
    for (ScheduleOp& op : c.built.ops)
      if (op.is_collective()) op.body = on_stage_group(op.collective(), mesh);
    c.pieces =
        stage_pieces(c.built, q.micro_batches, resolve_request(sq), block_order(actions, v));
  }

  const Schedule& first = chunks.front().built;
  Schedule out;
  out.model = first.model;
  out.plan = first.plan;
  out.wrap = first.wrap;
  out.world = q.world;
  out.gpus_per_node = q.gpus_per_node;
  out.ep = first.ep;
  out.tp = first.tp;
  out.shard_group = first.shard_group;
  out.rank = q.rank;
  out.micro_batch = q.micro_batch;
  out.seq = q.seq;
  out.micro_batches = q.micro_batches;
  // The tokens of a step, shared by the pipeline's stages as by a TP group's ranks.
  out.tokens_per_step =
      checked_mul(first.tokens_per_step / static_cast<std::uint64_t>(first.micro_batches),
                  static_cast<std::uint64_t>(q.micro_batches), "tokens per step") /
      static_cast<std::uint64_t>(plan.pp);
  const ModelTotals totals = model_totals(whole.model, whole.layers);
  out.model_params = totals.params;
  out.active_params = totals.active_params;
  for (const Chunk& c : chunks) {
    for (UnitSummary u : c.built.units) {
      u.name = c.prefix + u.name;
      // The stage was built for fewer micro-batches (stage_pieces.hpp).
      u.fwd_flops = u.fwd_flops / c.built.micro_batches * q.micro_batches;
      u.bwd_flops = u.bwd_flops / c.built.micro_batches * q.micro_batches;
      out.units.push_back(std::move(u));
    }
    const StageSpan& span = plan.stages[static_cast<std::size_t>(c.stage)];
    for (const MoeLayerSummary& m : c.built.moe)
      if (m.layer >= span.first_layer && m.layer < span.first_layer + span.layers)
        out.moe.push_back(m);
  }
  CollectiveOp p2p;
  p2p.dtype = whole.param_dtype;
  p2p.group = GroupKind::strided;
  p2p.group_size = plan.pp;
  p2p.group_stride = stage_world;
  const WorkloadRequest& wq = whole.request;  // --mesh may have set tp
  const bool split = wq.tp > 1 && wq.sequence_parallel;
  p2p.bytes = checked_mul(checked_mul(whole.tokens, static_cast<std::uint64_t>(whole.model.hidden),
                                      "activation size"),
                          dtype_size_bytes(whole.param_dtype), "activation bytes") /
              static_cast<std::uint64_t>(split ? wq.tp : 1);
  Assembler(plan, rank, chunks, p2p, out).run(actions);
  return out;
}

}  // namespace collreplay
