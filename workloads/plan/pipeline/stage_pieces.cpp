#include "workloads/plan/pipeline/stage_pieces.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// A block being trimmed: which ops stay, and the kernels taken out of its compute ops. Ops are
// found by name and FSDP2 copy kernels ("<collective>: FSDP2 ...") by their collective's name
// through indexes built once.
struct Trim {
  OpBlock& block;
  std::vector<bool> keep;
  std::unordered_map<std::string, int> op_of;
  // collective name -> (op, kernel) of its FSDP2 copy kernels; taken ones are marked in `taken_`.
  std::unordered_map<std::string, std::vector<std::pair<int, int>>> copies_of;
  std::set<std::pair<int, int>> taken_;

  explicit Trim(OpBlock& b) : block(b), keep(b.ops.size(), true) {
    for (std::size_t i = 0; i < b.ops.size(); ++i) {
      op_of.emplace(b.ops[i].name, static_cast<int>(i));
      if (b.ops[i].is_collective()) continue;
      const std::vector<KernelSlice>& kernels = b.ops[i].compute().kernels;
      for (std::size_t k = 0; k < kernels.size(); ++k) {
        const std::size_t at = kernels[k].label.find(": FSDP2");
        if (at != std::string::npos)
          copies_of[kernels[k].label.substr(0, at)].emplace_back(static_cast<int>(i),
                                                                 static_cast<int>(k));
      }
    }
  }

  int find(const std::string& name) const {
    const auto it = op_of.find(name);
    return it == op_of.end() ? -1 : it->second;
  }
  // Whether collective `name` is in the block: its op, or (a one-rank FSDP2 group, which calls no
  // collective) its copy kernels.
  bool present(const std::string& name) const { return find(name) >= 0 || copies_of.count(name); }
  // Takes the FSDP2 copy kernels of collective `name` out of the compute ops, with their share of
  // host time; returns them. Whether any was there in `found`.
  std::vector<KernelSlice> take_kernels(const std::string& name, const HostTimePerLaunch& host,
                                        bool& found) {
    std::vector<KernelSlice> taken;
    const auto it = copies_of.find(name);
    if (it == copies_of.end()) return taken;
    for (const auto& [op, k] : it->second) {
      if (!taken_.insert({op, k}).second) continue;
      ScheduleOp& o = block.ops[static_cast<std::size_t>(op)];
      ComputeOp& c = std::get<ComputeOp>(o.body);
      const double per_launch = o.phase == Phase::forward ? host.forward_us : host.backward_us;
      const KernelSlice& slice = c.kernels[static_cast<std::size_t>(k)];
      c.host_us = std::max(0.0, c.host_us - per_launch * static_cast<double>(slice.launches));
      taken.push_back(slice);
    }
    found = found || !taken.empty();
    return taken;
  }
  // Drops op `name` and its copy kernels; whether the collective was in the block at all.
  bool drop(const std::string& name, const HostTimePerLaunch& host) {
    bool found = false;
    take_kernels(name, host, found);
    const int i = find(name);
    if (i >= 0) keep[static_cast<std::size_t>(i)] = false;
    return found || i >= 0;
  }
  // The block without the dropped ops, indices renumbered (deps on dropped ops vanish).
  void apply() {
    for (auto it = taken_.rbegin(); it != taken_.rend(); ++it) {  // later kernels first
      std::vector<KernelSlice>& kernels =
          std::get<ComputeOp>(block.ops[static_cast<std::size_t>(it->first)].body).kernels;
      kernels.erase(kernels.begin() + it->second);
    }
    std::vector<int> index(block.ops.size(), -1);
    std::vector<ScheduleOp> kept;
    for (std::size_t i = 0; i < block.ops.size(); ++i) {
      if (!keep[i]) continue;
      index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(block.ops[i]));
    }
    for (ScheduleOp& op : kept) {
      std::vector<int> deps;
      for (int d : op.deps)
        if (index[static_cast<std::size_t>(d)] >= 0) deps.push_back(index[static_cast<std::size_t>(d)]);
      op.deps = std::move(deps);
      if (op.hides_behind >= 0) op.hides_behind = index[static_cast<std::size_t>(op.hides_behind)];
    }
    block.ops = std::move(kept);
  }
};

std::string mb_prefix(int micro_batches, int mb) {
  return micro_batches > 1 ? "mb" + std::to_string(mb) + "." : "";
}

// Micro-batch `mb`'s copy of a block built as micro-batch `built` of `built_count`: its ops, and
// the kernels named after one of them ("<op>: FSDP2 copy-out ...", "<op>: result read ..."),
// renamed as the builder names micro-batch mb of `micro_batches`.
OpBlock micro_batch_copy(const OpBlock& block, int built_count, int built, int micro_batches,
                         int mb) {
  OpBlock copy = block;
  const std::string from = mb_prefix(built_count, built), to = mb_prefix(micro_batches, mb);
  if (from == to) return copy;
  std::set<std::string> names;
  for (const ScheduleOp& op : block.ops) names.insert(op.name);
  const auto renamed = [&](const std::string& name) { return to + name.substr(from.size()); };
  for (ScheduleOp& op : copy.ops) {
    op.name = renamed(op.name);
    if (op.is_collective()) continue;
    for (KernelSlice& k : std::get<ComputeOp>(op.body).kernels)
      if (names.count(k.label.substr(0, k.label.find(": ")))) k.label = renamed(k.label);
  }
  return copy;
}

// The built schedule's forward and backward blocks, and its optimizer ops, with block-local
// indices. It holds two micro-batches (one when the step has one): a step's first forward is the
// first's, its other forwards the second's; its last backward the second's, the others the
// first's. Every micro-batch but the first and the last is alike but for its names (a plan may
// treat those two apart: the distributed optimizer gathers before the first forward and
// reduce-scatters in the last backward).
void cut_blocks(Schedule& s, int micro_batches, StagePieces& out) {
  std::vector<int> block_of(s.ops.size(), -1), local(s.ops.size(), -1);
  std::vector<OpBlock> blocks;
  bool in_forward = false;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    ScheduleOp op = std::move(s.ops[i]);
    if (op.phase == Phase::optimizer) {
      op.deps.clear();
      out.tail.push_back(std::move(op));
      continue;
    }
    const bool forward = op.phase == Phase::forward;
    if (blocks.empty() || forward != in_forward) blocks.emplace_back();
    in_forward = forward;
    const int b = static_cast<int>(blocks.size()) - 1;
    block_of[i] = b;
    local[i] = static_cast<int>(blocks[b].ops.size());
    for (int& d : op.deps) {
      if (block_of[static_cast<std::size_t>(d)] != b)
        throw RuntimeError("pipeline: op '" + op.name + "' waits for another micro-batch's op");
      d = local[static_cast<std::size_t>(d)];
    }
    if (op.hides_behind >= 0) op.hides_behind = local[static_cast<std::size_t>(op.hides_behind)];
    blocks[b].ops.push_back(std::move(op));
  }
  const int built = s.micro_batches;
  if (static_cast<int>(blocks.size()) != 2 * built || built != std::min(micro_batches, 2))
    throw RuntimeError("pipeline: the stage's schedule is not the forward and backward of " +
                       std::to_string(std::min(micro_batches, 2)) + " micro-batch(es)");
  const int second = built - 1;  // the built micro-batch that stands for the later ones
  for (int mb = 0; mb < micro_batches; ++mb) {
    const int f = mb == 0 ? 0 : second, b = mb == micro_batches - 1 ? second : 0;
    out.forward.push_back(micro_batch_copy(blocks[static_cast<std::size_t>(2 * f)], built, f,
                                           micro_batches, mb));
    out.backward.push_back(micro_batch_copy(blocks[static_cast<std::size_t>(2 * b + 1)], built,
                                            b, micro_batches, mb));
  }
}

// The backward that runs last in `order`.
int last_backward(const std::vector<std::pair<bool, int>>& order) {
  int last = -1;
  for (const auto& [forward, mb] : order)
    if (!forward) last = mb;
  return last;
}

// FSDP2 under the pipeline (header): a unit is gathered only while sharded; every unit's copy-in
// and reduce-scatter (with HSDP's all-reduce) once, in the REDUCE_GRAD block.
void fsdp2_rules(const Schedule& s, int m, const ResolvedRequest& r,
                 const std::vector<std::pair<bool, int>>& order, StagePieces& out) {
  std::map<std::string, bool> gathered;
  for (const UnitSummary& u : s.units) gathered[u.name] = false;
  for (const auto& [forward, mb] : order) {
    Trim trim((forward ? out.forward : out.backward).at(static_cast<std::size_t>(mb)));
    for (auto& [unit, held] : gathered) {
      const std::string gather = mb_prefix(m, mb) + (forward ? "ag.fwd." : "ag.bwd.") + unit;
      if (trim.present(gather)) {
        if (held)
          trim.drop(gather, r.host_time);  // unshard() of a gathered unit does nothing
        else
          held = true;
      }
      // After a forward FSDP2 reshards (reshard_after_forward), the root excepted; after a
      // backward the pipeline keeps it gathered.
      if (forward && r.full_shard && unit != "root") held = false;
    }
    trim.apply();
  }
  const int last = last_backward(order);
  ScheduleOp post;
  post.name = "fsdp.post_backward";
  post.stream = StreamKind::compute;
  post.phase = Phase::backward;
  post.unit = "root";
  ComputeOp copies{r.param_dtype, {}, {}, 0};
  for (int mb = 0; mb < m; ++mb) {
    Trim trim(out.backward.at(static_cast<std::size_t>(mb)));
    for (const auto& [unit, held] : gathered) {
      const std::string p = mb_prefix(m, mb);
      bool found = false;
      const std::vector<KernelSlice> taken = trim.take_kernels(p + "rs." + unit, r.host_time, found);
      const int rs = trim.find(p + "rs." + unit), ar = trim.find(p + "ar." + unit);
      if (mb == last) {
        copies.kernels.insert(copies.kernels.end(), taken.begin(), taken.end());
        int rs_at = 0;  // the copy-in op
        for (int i : {rs, ar}) {
          if (i < 0) continue;
          ScheduleOp op = trim.block.ops[static_cast<std::size_t>(i)];
          op.name = op.name.substr(p.size());
          op.deps = {i == ar && rs >= 0 ? rs_at : 0};
          op.hides_behind = -1;
          out.reduce.ops.push_back(std::move(op));
          if (i == rs) rs_at = static_cast<int>(out.reduce.ops.size());  // index after post
        }
      }
      for (int i : {rs, ar})
        if (i >= 0) trim.keep[static_cast<std::size_t>(i)] = false;
    }
    trim.apply();
  }
  if (copies.kernels.empty() && out.reduce.ops.empty()) return;
  for (KernelSlice& k : copies.kernels) {
    k.at = 0;  // the copy-in op has no GEMMs
    copies.host_us += r.host_time.backward_us * static_cast<double>(k.launches);
  }
  post.body = std::move(copies);
  out.reduce.ops.insert(out.reduce.ops.begin(), std::move(post));
}

// DDP under the pipeline (header): bucket all-reduces in the last backward only, no buffer
// broadcast.
void ddp_rules(int m, const ResolvedRequest& r, const std::vector<std::pair<bool, int>>& order,
               StagePieces& out) {
  const int last = last_backward(order);
  for (int mb = 0; mb < m; ++mb) {
    const std::string p = mb_prefix(m, mb);
    Trim forward(out.forward.at(static_cast<std::size_t>(mb)));
    forward.drop(p + "bcast.buffers", r.host_time);
    forward.apply();
    if (mb == last) continue;
    Trim backward(out.backward.at(static_cast<std::size_t>(mb)));
    for (std::size_t i = 0; i < backward.block.ops.size(); ++i)
      if (starts_with(backward.block.ops[i].name, p + "ar.bucket")) backward.keep[i] = false;
    backward.apply();
  }
}

}  // namespace

int OpBlock::first_compute() const {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (!ops[i].is_collective()) return static_cast<int>(i);
  return -1;
}

int OpBlock::last_compute() const {
  for (std::size_t i = ops.size(); i-- > 0;)
    if (!ops[i].is_collective()) return static_cast<int>(i);
  return -1;
}

StagePieces stage_pieces(Schedule& built, int micro_batches, const ResolvedRequest& r,
                         const std::vector<std::pair<bool, int>>& order) {
  StagePieces out;
  cut_blocks(built, micro_batches, out);
  built.ops.clear();
  if (r.plan == PlanKind::fsdp2) fsdp2_rules(built, micro_batches, r, order, out);
  if (r.plan == PlanKind::ddp) ddp_rules(micro_batches, r, order, out);
  return out;
}

}  // namespace collreplay
