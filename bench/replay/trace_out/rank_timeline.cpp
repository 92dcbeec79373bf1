#include "bench/replay/trace_out/rank_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "bench/compute/launch_order.hpp"
#include "bench/executor/group_key.hpp"
#include "bench/replay/trace_out/torch_comm_args.hpp"

namespace collreplay {
namespace {

using nlohmann::json;

// Launches never share an instant: the importer orders them by time and tells the optimizer's
// from the backward's before them by the "Optimizer.step" span, bounds included.
constexpr double kLaunchGapUs = 0.01;

// One kernel event of a compute op: a GEMM, or consecutive launches of one kernel slice.
struct Piece {
  std::string name;
  json args;
  double weight_ms = 0;  // modeled device time: its share of the op's measured time
  double host_us = 0;    // host time before its launch(es)
  json aten;             // a GEMM: the aten op torch records with record_shapes, else null
};

// A GEMM as torch.profiler records it with record_shapes: aten::mm (aten::bmm when batched)
// with its operands' dims, so that FLOPs counted from traced shapes count it back.
json aten_gemm(const GemmShape& g, DType dtype) {
  const std::string type = "c10::" + torch_dtype_name(dtype);
  json dims = g.batch > 1 ? json::array({json::array({g.batch, g.m, g.k}),
                                         json::array({g.batch, g.k, g.n})})
                          : json::array({json::array({g.m, g.k}), json::array({g.k, g.n})});
  return {{"name", g.batch > 1 ? "aten::bmm" : "aten::mm"},
          {"args", {{"Input Dims", dims}, {"Input type", {type, type}}}}};
}

std::vector<Piece> pieces_of(const ScheduleOp& op, const RankStep& step) {
  std::vector<Piece> pieces;
  for (const Launch& l : launch_order(op.compute(), step.compute_scale)) {
    if (l.is_gemm) {
      const GemmShape& g = l.gemm;
      Piece p;
      p.name = g.label.empty() ? "gemm" : g.label;
      p.args = {{"label", g.label}, {"M", g.m},       {"N", g.n},
                {"K", g.k},         {"batch", g.batch}, {"flops", gemm_shape_flops(g)}};
      if (!g.group_rows.empty()) p.args["group_rows"] = g.group_rows;
      p.weight_ms = modeled_ms({g}, step.model);
      p.host_us = l.host_us;
      p.aten = aten_gemm(g, op.compute().dtype);
      pieces.push_back(std::move(p));
      continue;
    }
    const KernelSlice& k = l.kernel;
    const std::string kind(kernel_kind_name(k.kind));
    Piece* last = pieces.empty() ? nullptr : &pieces.back();
    if (!last || last->args.value("label", std::string("\x01")) != k.label ||
        last->args.value("kind", std::string()) != kind) {
      Piece p;
      p.name = k.label.empty() ? kind : k.label;
      p.args = {{"label", k.label}, {"kind", kind}, {"launches", 0}, {"bytes", 0}};
      pieces.push_back(std::move(p));
      last = &pieces.back();
    }
    last->args["launches"] = last->args["launches"].get<std::uint64_t>() + 1;
    last->args["bytes"] = last->args["bytes"].get<std::uint64_t>() + k.read_bytes + k.write_bytes;
    last->weight_ms += modeled_kernel_ms(k, step.model);
    last->host_us += l.host_us;
  }
  return pieces;
}

class Builder {
 public:
  explicit Builder(const RankStep& step)
      : step_(step), s_(*step.schedule), correlation_(step.rank * kCorrelationsPerRank) {}

  RankTrace build() {
    for (std::size_t i = 0; i < s_.ops.size(); ++i) {
      const ScheduleOp& op = s_.ops[i];
      const double start = at_us(step_.op_start_ms, i), end = std::max(start, at_us(step_.op_end_ms, i));
      const int host = host_tid(op.phase);
      const double host_from = host_us_;
      if (op.is_collective()) {
        const CollectiveOp& c = op.collective();
        const std::vector<int> members = group_members(s_, c, step_.rank, step_.node_colors);
        note_group(c, members);
        kernel(nccl_kernel_name(c), comm_tid(c), start, end - start, host,
               collective_args(op, members));
      } else {
        compute(op, start, end, host);
      }
      if (!op.is_collective() && op.compute().host_us > 0 && last_launch_us_ >= host_from)
        add({{"ph", "X"}, {"cat", "host_time"}, {"name", "host: " + op.name}, {"tid", host},
             {"ts", host_from}, {"dur", last_launch_us_ - host_from},
             {"args", {{"op", op.name}, {"host_us", op.compute().host_us}}}});
      if (op.phase == Phase::optimizer) {
        optimizer_from_ = std::min(optimizer_from_, host_from);
        optimizer_to_ = std::max(optimizer_to_, last_launch_us_);
      }
      gpu_end_ = std::max(gpu_end_, end);
    }
    annotations();
    phases();
    metadata();
    return std::move(out_);
  }

 private:
  static double at_us(const std::vector<double>& ms, std::size_t i) {
    return i < ms.size() ? ms[i] * 1e3 : 0.0;
  }
  static int host_tid(Phase p) {
    return p == Phase::backward || p == Phase::recompute ? kAutogradTid : kHostTid;
  }

  void add(json event) {
    event["pid"] = step_.rank;
    // To the nanosecond (the profiler's own resolution, and shorter numbers in the file): the
    // start and the end, so that spans that met still meet.
    auto ns = [](double us) { return std::round(us * 1e3) / 1e3; };
    if (event.contains("ts")) {
      const double ts = event["ts"].get<double>();
      if (event.contains("dur")) event["dur"] = ns(ts + event["dur"].get<double>()) - ns(ts);
      event["ts"] = ns(ts);
    }
    out_.events.push_back(std::move(event));
  }

  int comm_tid(const CollectiveOp& c) {
    const GroupKey key = group_key(c);
    auto [it, added] =
        streams_.emplace(key, kFirstCommStreamTid + static_cast<int>(streams_.size()));
    if (added) thread_names_[it->second] = "comm stream (" + group_key_label(key) + ")";
    return it->second;
  }

  void note_group(const CollectiveOp& c, const std::vector<int>& members) {
    const std::string label = group_label(c);
    if (!groups_seen_.insert(label).second) return;
    out_.process_groups.push_back({{"pg_name", label},
                                   {"pg_desc", label},
                                   {"pg_size", members.size()},
                                   {"ranks", members}});
  }

  // A launch on the host now, the kernel it launched on `tid`, and the arrow between them.
  void kernel(const std::string& name, int tid, double ts, double dur, int host, json args) {
    // One stream runs one kernel at a time: an op measured to start a hair before the previous
    // one's end (two clocks' readings) starts at that end, so that the track's spans nest. Ops
    // timed as one (a p2p group) keep their common span.
    auto [last, added] = stream_last_.try_emplace(tid, ts, ts);
    if (!added && !(ts == last->second.first && ts + dur == last->second.second) &&
        ts < last->second.second) {
      dur = std::max(0.0, ts + dur - last->second.second);
      ts = last->second.second;
    }
    last->second = {ts, std::max(last->second.second, ts + dur)};
    const long long id = ++correlation_;
    last_launch_us_ = host_us_;
    add({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"tid", host},
         {"ts", host_us_}, {"dur", 0}, {"args", {{"correlation", id}}}});
    args["correlation"] = id;
    args["stream"] = tid;
    args["device"] = 0;
    add({{"ph", "X"}, {"cat", "kernel"}, {"name", name}, {"tid", tid}, {"ts", ts}, {"dur", dur},
         {"args", std::move(args)}});
    add({{"ph", "s"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", id}, {"tid", host},
         {"ts", host_us_}});
    add({{"ph", "f"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", id}, {"tid", tid}, {"ts", ts},
         {"bp", "e"}});
    host_us_ += kLaunchGapUs;
  }

  // The op's measured time shared among its kernels by their modeled time, back to back.
  void compute(const ScheduleOp& op, double start, double end, int host) {
    const std::vector<Piece> pieces = pieces_of(op, step_);
    double total = 0;
    for (const Piece& p : pieces) total += p.weight_ms;
    double done = 0;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      const Piece& p = pieces[k];
      const double share = total > 0 ? p.weight_ms / total : 1.0 / pieces.size();
      const double from = start + (end - start) * done;
      done += share;
      const double to = k + 1 == pieces.size() ? end : start + (end - start) * done;
      host_us_ += p.host_us;
      json args = p.args;
      args.update({{"op", op.name}, {"phase", std::string(phase_name(op.phase))}, {"unit", op.unit}});
      if (!p.aten.is_null()) {
        // torch ties the op to its kernel by "External id"; the launch happens inside the op.
        json aten_args = p.aten["args"];
        aten_args["External id"] = correlation_ + 1;
        args["External id"] = correlation_ + 1;
        add({{"ph", "X"}, {"cat", "cpu_op"}, {"name", p.aten["name"]}, {"tid", host},
             {"ts", host_us_}, {"dur", 0}, {"args", std::move(aten_args)}});
      }
      kernel(p.name, kComputeStreamTid, from, to - from, host, std::move(args));
    }
    if (!pieces.empty()) thread_names_[kComputeStreamTid] = "compute stream";
  }

  void annotations() {
    const double step_end = std::max(gpu_end_, host_us_);
    add({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"tid", kHostTid},
         {"ts", 0.0}, {"dur", step_end}, {"args", json::object()}});
    if (optimizer_to_ >= optimizer_from_)
      add({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "Optimizer.step#replay.step"},
           {"tid", kHostTid}, {"ts", optimizer_from_}, {"dur", optimizer_to_ - optimizer_from_},
           {"args", json::object()}});
  }

  // Each run of ops of one phase as a span from its first op's start to its last op's end,
  // never reaching back into the span before it (a track's spans must not cross).
  void phases() {
    double last_end = 0;
    std::size_t i = 0;
    while (i < s_.ops.size()) {
      const Phase phase = s_.ops[i].phase;
      double from = at_us(step_.op_start_ms, i), to = at_us(step_.op_end_ms, i);
      std::size_t j = i;
      for (; j < s_.ops.size() && s_.ops[j].phase == phase; ++j) {
        from = std::min(from, at_us(step_.op_start_ms, j));
        to = std::max(to, at_us(step_.op_end_ms, j));
      }
      from = std::max(from, last_end);
      if (to > from) {
        add({{"ph", "X"}, {"cat", "phase"}, {"name", std::string(phase_name(phase))},
             {"tid", kPhaseTid}, {"ts", from}, {"dur", to - from},
             {"args", {{"first_op", s_.ops[i].name}, {"last_op", s_.ops[j - 1].name}}}});
        last_end = to;
      }
      i = j;
    }
  }

  void metadata() {
    thread_names_[kHostTid] = "host";
    thread_names_[kAutogradTid] = "host (autograd: backward)";
    thread_names_[kPhaseTid] = "phases";
    add({{"ph", "M"}, {"name", "process_name"}, {"tid", 0},
         {"args", {{"name", "rank " + std::to_string(step_.rank)}}}});
    add({{"ph", "M"}, {"name", "process_sort_index"}, {"tid", 0},
         {"args", {{"sort_index", step_.rank}}}});
    for (const auto& [tid, name] : thread_names_) {
      add({{"ph", "M"}, {"name", "thread_name"}, {"tid", tid}, {"args", {{"name", name}}}});
      add({{"ph", "M"}, {"name", "thread_sort_index"}, {"tid", tid},
           {"args", {{"sort_index", tid}}}});
    }
  }

  const RankStep& step_;
  const Schedule& s_;
  RankTrace out_;
  long long correlation_;
  double host_us_ = 0, last_launch_us_ = 0, gpu_end_ = 0;
  double optimizer_from_ = 1e300, optimizer_to_ = -1;
  std::map<GroupKey, int> streams_;
  std::map<int, std::pair<double, double>> stream_last_;  // per device track: last span
  std::map<int, std::string> thread_names_;
  std::set<std::string> groups_seen_;
};

}  // namespace

RankTrace rank_trace(const RankStep& step) { return Builder(step).build(); }

}  // namespace collreplay
