#include "workloads/plan/pipeline/pipeline_order.hpp"

#include <algorithm>
#include <tuple>

#include "common/errors.hpp"

namespace collreplay {
namespace {

using Kind = PipeAction::Kind;

// Appends actions; the compute stream's pending waits go to the next compute action.
class ActionList {
 public:
  int p2p(Kind kind, bool gradient, int mb, int batch, int chunk = 0) {
    PipeAction a;
    a.kind = kind;
    a.gradient = gradient;
    a.mb = mb;
    a.batch = batch;
    a.chunk = chunk;
    out_.push_back(a);
    return static_cast<int>(out_.size()) - 1;
  }
  void compute(Kind kind, int mb, int chunk = 0) {
    PipeAction a;
    a.kind = kind;
    a.mb = mb;
    a.chunk = chunk;
    a.waits = std::move(pending_);
    pending_.clear();
    out_.push_back(std::move(a));
  }
  void wait_for(const std::vector<int>& actions) {
    pending_.insert(pending_.end(), actions.begin(), actions.end());
  }
  int new_batch() { return batches_++; }
  std::vector<PipeAction> take() { return std::move(out_); }

 private:
  std::vector<PipeAction> out_;
  std::vector<int> pending_;
  int batches_ = 0;
};

// ScheduleGPipe._step_microbatches.
std::vector<PipeAction> gpipe(int pp, int m, int s) {
  ActionList l;
  std::vector<int> sends;
  for (int i = 0; i < m; ++i) {
    if (s > 0) l.wait_for({l.p2p(Kind::recv, false, i, l.new_batch())});
    l.compute(Kind::forward, i);
    if (s < pp - 1) sends.push_back(l.p2p(Kind::send, false, i, l.new_batch()));
  }
  l.wait_for(sends);  // every forward send, before the first backward
  sends.clear();
  for (int i = 0; i < m; ++i) {
    if (s < pp - 1) l.wait_for({l.p2p(Kind::recv, true, i, l.new_batch())});
    l.compute(Kind::backward, i);
    if (s > 0) sends.push_back(l.p2p(Kind::send, true, i, l.new_batch()));
  }
  l.wait_for(sends);
  l.compute(Kind::reduce_grad, 0);
  l.compute(Kind::end, 0);
  return l.take();
}

// Schedule1F1B._step_microbatches.
std::vector<PipeAction> one_f_one_b(int pp, int m, int s) {
  ActionList l;
  const bool first = s == 0, last = s == pp - 1;
  const int warmup = std::min(m, pp - s);
  std::vector<int> send_work;  // fired sends the next wait covers
  int fwd_send = -1, bwd_send = -1;  // a send prepared but not yet fired: its micro-batch
  for (int k = 0; k < warmup; ++k) {
    if (!first) l.wait_for({l.p2p(Kind::recv, false, k, l.new_batch())});
    l.compute(Kind::forward, k);
    l.wait_for(send_work);  // the previous forward's send, before anything more computes
    send_work.clear();
    fwd_send = last ? -1 : k;
    if (k != warmup - 1 && fwd_send >= 0) {  // the last one is fused with the first backward
      send_work = {l.p2p(Kind::send, false, fwd_send, l.new_batch())};
      fwd_send = -1;
    }
  }
  int fwd = warmup, bwd = 0;
  for (;;) {
    int batch = l.new_batch();
    if (fwd_send >= 0) l.wait_for({l.p2p(Kind::send, false, fwd_send, batch)});
    if (!last) l.wait_for({l.p2p(Kind::recv, true, bwd, batch)});
    fwd_send = -1;
    l.compute(Kind::backward, bwd);
    bwd_send = first ? -1 : bwd;
    ++bwd;
    if (fwd == m) break;
    batch = l.new_batch();
    if (bwd_send >= 0) l.wait_for({l.p2p(Kind::send, true, bwd_send, batch)});
    if (!first) l.wait_for({l.p2p(Kind::recv, false, fwd, batch)});
    bwd_send = -1;
    l.compute(Kind::forward, fwd);
    fwd_send = last ? -1 : fwd;
    ++fwd;
  }
  if (bwd_send >= 0) send_work = {l.p2p(Kind::send, true, bwd_send, l.new_batch())};
  for (; bwd < m; ++bwd) {
    if (!last) l.wait_for({l.p2p(Kind::recv, true, bwd, l.new_batch())});
    l.compute(Kind::backward, bwd);
    l.wait_for(send_work);
    send_work.clear();
    if (!first) send_work = {l.p2p(Kind::send, true, bwd, l.new_batch())};
  }
  l.wait_for(send_work);
  l.compute(Kind::reduce_grad, 0);
  l.compute(Kind::end, 0);
  return l.take();
}

// Megatron-LM's forward_backward_pipelining_with_interleaving (without overlap_p2p_comm): the
// chunk of the k-th forward is (k / pp) mod V (backward: V - 1 - that), warm-up
// 2 x (pp - rank - 1) + (V - 1) x pp forwards; after every compute step one batch that sends its
// outputs and receives the next step's inputs (send_forward_recv_forward,
// send_forward_backward_recv_forward_backward, send_backward_recv_backward), waited before the
// next compute. The inputs of a chunk arrive in micro-batch order.
class Interleaved {
 public:
  Interleaved(int pp, int v, int m, int rank)
      : pp_(pp), v_(v), total_(m * v), first_(rank == 0), last_(rank == pp - 1),
        fwd_(v, 0), bwd_(v, 0), in_fwd_(v, 0), in_bwd_(v, 0) {
    warmup_ = std::min(total_, 2 * (pp - rank - 1) + (v - 1) * pp);
  }

  std::vector<PipeAction> run() {
    const bool all_warmup = warmup_ == total_;
    if (!first_) batch({}, {{false, 0}});
    for (int k = 0; k < warmup_; ++k) {
      const int c = chunk(k, true), mb = fwd_[c]++;
      l_.compute(Kind::forward, mb, c);
      const int next = chunk(k + 1, true);
      const bool recv_prev = !(first_ && next == 0) && k != total_ - 1;
      std::vector<std::pair<bool, int>> recvs;
      if (recv_prev) recvs.push_back({false, next});
      if (k == warmup_ - 1 && !all_warmup && !last_) recvs.push_back({true, v_ - 1});
      batch(sends_of(c, mb, -1, -1), recvs);
    }
    const int remaining = total_ - warmup_;
    for (int k = 0; k < remaining; ++k) {
      const int fk = k + warmup_, cf = chunk(fk, true), mf = fwd_[cf]++;
      l_.compute(Kind::forward, mf, cf);
      const int cb = chunk(k, false), mbb = bwd_[cb]++;
      l_.compute(Kind::backward, mbb, cb);
      // The first stage runs pp - 1 forwards ahead of the last, the last pp - 1 backwards ahead.
      int next_f = chunk(fk + 1, true), next_b = chunk(k + 1, false);
      bool recv_prev = true, recv_next = true;
      if (first_) {
        next_f = chunk(fk - (pp_ - 1), true);
        recv_prev = next_f != v_ - 1;
        ++next_f;
      }
      if (last_) {
        next_b = chunk(k - (pp_ - 1), false);
        recv_next = next_b != 0;
        --next_b;
      }
      if (k == remaining - 1) recv_prev = false;
      std::vector<std::pair<bool, int>> recvs;
      if (recv_prev) recvs.push_back({false, next_f});
      if (recv_next) recvs.push_back({true, next_b});
      batch(sends_of(cf, mf, cb, mbb), recvs);
    }
    if (all_warmup && !last_) batch({}, {{true, v_ - 1}});
    for (int k = remaining; k < total_; ++k) {
      const int c = chunk(k, false), mb = bwd_[c]++;
      l_.compute(Kind::backward, mb, c);
      const int next = chunk(k + 1, false);
      const bool recv_next = !(last_ && next == v_ - 1) && k != total_ - 1;
      std::vector<std::pair<bool, int>> recvs;
      if (recv_next) recvs.push_back({true, next});
      batch(sends_of(-1, -1, c, mb), recvs);
    }
    l_.compute(Kind::reduce_grad, 0);
    l_.compute(Kind::end, 0);
    return l_.take();
  }

 private:
  // get_model_chunk_id, with Python's floor division and modulo (k goes below 0 on the edges).
  int chunk(int k, bool forward) const {
    const int group = k >= 0 ? k / pp_ : -((-k + pp_ - 1) / pp_);
    const int c = ((group % v_) + v_) % v_;
    return forward ? c : v_ - 1 - c;
  }
  // The sends of a step: a forward's output unless it is the model's last stage, a backward's
  // input gradient unless the model's first; (chunk, micro-batch), -1 for none.
  std::vector<std::tuple<bool, int, int>> sends_of(int fc, int fm, int bc, int bm) const {
    std::vector<std::tuple<bool, int, int>> sends;
    if (fc >= 0 && !(last_ && fc == v_ - 1)) sends.emplace_back(false, fc, fm);
    if (bc >= 0 && !(first_ && bc == 0)) sends.emplace_back(true, bc, bm);
    return sends;
  }
  // One waited batch: the sends, and receives (gradient?, chunk) of the next inputs.
  void batch(const std::vector<std::tuple<bool, int, int>>& sends,
             const std::vector<std::pair<bool, int>>& recvs) {
    if (sends.empty() && recvs.empty()) return;
    const int b = l_.new_batch();
    std::vector<int> ops;
    for (const auto& [gradient, c, mb] : sends) ops.push_back(l_.p2p(Kind::send, gradient, mb, b, c));
    for (const auto& [gradient, c] : recvs) {
      const int mb = (gradient ? in_bwd_ : in_fwd_)[static_cast<std::size_t>(c)]++;
      ops.push_back(l_.p2p(Kind::recv, gradient, mb, b, c));
    }
    l_.wait_for(ops);
  }

  int pp_, v_, total_;
  bool first_, last_;
  int warmup_ = 0;
  std::vector<int> fwd_, bwd_, in_fwd_, in_bwd_;  // per chunk: micro-batches done / received
  ActionList l_;
};

}  // namespace

std::vector<PipeAction> pipeline_actions(const PipelinePlan& plan, int rank) {
  if (rank < 0 || rank >= plan.pp) throw RuntimeError("pipeline rank outside the pipeline");
  switch (plan.kind) {
    case PipeScheduleKind::gpipe: return gpipe(plan.pp, plan.micro_batches, rank);
    case PipeScheduleKind::one_f_one_b: return one_f_one_b(plan.pp, plan.micro_batches, rank);
    case PipeScheduleKind::interleaved:
      return Interleaved(plan.pp, plan.virtual_stages, plan.micro_batches, rank).run();
  }
  return {};
}

int peer_stage(const PipelinePlan& plan, int rank, const PipeAction& a) {
  const int stage = plan.stage_of(rank, a.chunk);
  // Activations travel down the pipeline, gradients up it.
  const bool down = (a.kind == Kind::send) != a.gradient;
  return down ? stage + 1 : stage - 1;
}

std::string action_name(const PipelinePlan& plan, int rank, const PipeAction& a) {
  const std::string stage = std::to_string(plan.stage_of(rank, a.chunk));
  const std::string mb = std::to_string(a.mb);
  switch (a.kind) {
    case Kind::forward: return stage + "F" + mb;
    case Kind::backward: return stage + "B" + mb;
    case Kind::send: return stage + (a.gradient ? "SEND_B" : "SEND_F") + mb;
    case Kind::recv: return stage + (a.gradient ? "RECV_B" : "RECV_F") + mb;
    case Kind::reduce_grad: return stage + "REDUCE_GRAD";
    case Kind::end: return "END";
  }
  return "?";
}

}  // namespace collreplay
