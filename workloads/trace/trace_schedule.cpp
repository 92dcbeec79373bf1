#include "workloads/trace/trace_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "collectives/ops/op_registry.hpp"
#include "workloads/model/eager_kernels.hpp"
#include "workloads/trace/read/op_flops.hpp"
#include "workloads/trace/trace_collective.hpp"

namespace collreplay::trace {
namespace {

const char* short_phase(Phase p) {
  return p == Phase::forward ? "fwd" : p == Phase::backward ? "bwd" : "opt";
}
// Builds the ops in launch order; one compute op is open at a time.
class Converter {
 public:
  Converter(const TraceEvents& trace, bool host_time)
      : trace_(trace), host_time_(host_time), host_from_us_(trace.step_start_us) {
    main_tid_ = trace.gpu.front().launch_tid;
  }

  TraceImport run() {
    std::vector<HostSpan> waits = trace_.host_waits;
    std::sort(waits.begin(), waits.end(),
              [](const HostSpan& a, const HostSpan& b) { return a.start_us < b.start_us; });
    std::size_t next_wait = 0;
    double last_launch_us = -std::numeric_limits<double>::infinity();
    for (const GpuWork& w : trace_.gpu) {
      // The host stood blocked on the GPU between two launches (.item(), .tolist(), a
      // synchronize): replay waits there too. Waits before the first launch held the step up
      // for the previous one's work (queued_us), not for its own.
      for (; next_wait < waits.size() && waits[next_wait].end_us <= w.launch_us; ++next_wait)
        if (std::isfinite(last_launch_us) && waits[next_wait].start_us >= last_launch_us &&
            waits[next_wait].end_us - waits[next_wait].start_us > trace_.launch_stall_us)
          add_host_sync(waits[next_wait], phase_of(w));
      last_launch_us = w.launch_us;
      if (w.collective) {
        close(w.launch_us);
        add_collective(w);
      } else {
        add_compute(w);
      }
      gpu_end_us_ = std::max(gpu_end_us_, w.start_us + w.dur_us);
    }
    close(trace_.gpu.back().launch_end_us);
    link_hiding();
    out_.device = trace_.device;
    // Work launched before the step can hold it up at its start: the host blocks on it before
    // its first launch (an event or stream sync), or the step's first work stands queued behind
    // it on the GPU (a loop with no sync between steps). That time belongs to the steps before;
    // the step as it runs alone, as replay runs it, starts after it.
    const GpuWork& first = trace_.gpu.front();
    double start_us = trace_.step_start_us;
    for (const HostSpan& wait : trace_.host_waits)
      if (wait.start_us < first.launch_us) start_us = std::max(start_us, wait.end_us);
    const double gpu_queued_us =
        std::max(0.0, first.start_us - std::max(first.launch_end_us, start_us));
    // The queue delays the step only while the GPU stays behind the host: a host-bound step
    // (short kernels, a slow Python loop) catches up and ends no sooner than its own host time
    // lets it.
    const double end_us = std::max(gpu_end_us_ - gpu_queued_us, host_paced_end_us(start_us));
    out_.step_us = end_us - start_us;
    out_.queued_us = gpu_end_us_ - trace_.step_start_us - out_.step_us;
    return std::move(out_);
  }

 private:
  Phase phase_of(const GpuWork& w) const {
    for (const HostSpan& s : trace_.optimizer)
      if (w.launch_us >= s.start_us && w.launch_us <= s.end_us) return Phase::optimizer;
    // The autograd engine runs backward (and checkpointed recompute) on a thread of its own.
    return w.launch_tid == main_tid_ ? Phase::forward : Phase::backward;
  }

  // The soonest the step's compute could end had it started at `start_us` on an idle GPU: each
  // compute launch comes after the host's own time up to it (its waits for the GPU left out),
  // and the work after it on its stream runs after it. Collectives are left out: their traced
  // time includes waiting for other ranks.
  double host_paced_end_us(double start_us) const {
    std::map<std::int64_t, double> stream_rest_us;  // work launched from here on, per stream
    double end_us = start_us;
    for (auto w = trace_.gpu.rbegin(); w != trace_.gpu.rend(); ++w) {
      if (w->collective) continue;
      const double rest_us = stream_rest_us[w->stream] += w->dur_us;
      end_us = std::max(end_us, start_us + host_between(start_us, w->launch_end_us) + rest_us);
    }
    return end_us;
  }

  // The host's own time in [from, to): the wall time less its waits for the GPU (syncs, and
  // launches held up by a full launch queue).
  double host_between(double from, double to) const {
    double busy = std::max(0.0, to - from);
    for (const std::vector<HostSpan>* waits : {&trace_.host_waits, &trace_.launch_stalls})
      for (const HostSpan& s : *waits)
        busy -= std::max(0.0, std::min(to, s.end_us) - std::max(from, s.start_us));
    return std::max(0.0, busy);
  }

  // The collective this kernel's stream stood waiting for, or -1.
  int waited_for(const GpuWork& w) const {
    auto last = stream_end_us_.find(w.stream);
    if (last != stream_end_us_.end() && w.start_us - last->second <= kWaitGapUs) return -1;
    int best = -1;
    double best_end = 0;
    for (const auto& [op, end_us] : collective_end_us_)
      if (end_us <= w.start_us && w.start_us - end_us <= kWaitGapUs && end_us >= best_end) {
        best = op;
        best_end = end_us;
      }
    return best;
  }

  void add_compute(const GpuWork& w) {
    const Phase phase = phase_of(w);
    const int waited = waited_for(w);
    if (open_ && (waited >= 0 || phase != open_phase_)) close(w.launch_us);
    if (!open_) {
      open_ = true;
      open_phase_ = phase;
      open_op_ = ComputeOp{};
      open_deps_.clear();
      open_us_ = 0;
    }
    if (waited >= 0) open_deps_.push_back(waited);
    std::vector<KernelSlice>& slices = open_op_.kernels;
    if (slices.empty() || slices.back().label != w.label) {
      KernelSlice k;
      k.kind = KernelKind::timed;
      k.label = w.label;
      k.launches = 0;
      slices.push_back(k);
    }
    slices.back().launches += 1;
    slices.back().duration_us += w.dur_us;
    open_us_ += w.dur_us;
    out_.compute_us += w.dur_us;
    stream_end_us_[w.stream] = std::max(stream_end_us_[w.stream], w.start_us + w.dur_us);
  }

  // Ends the open compute op at host time `until`; without one, the host time stays for the next.
  void close(double until) {
    if (!open_) return;
    open_ = false;
    ScheduleOp op;
    op.name = "compute." + std::string(short_phase(open_phase_)) + ".s" + std::to_string(segment_++);
    op.stream = StreamKind::compute;
    op.phase = open_phase_;
    op.unit = "trace";
    op.deps = open_deps_;
    if (host_time_) open_op_.host_us = host_between(host_from_us_, until);
    out_.host_us += open_op_.host_us;
    op.body = open_op_;
    host_from_us_ = until;
    last_compute_ = static_cast<int>(ops().size());
    ops().push_back(std::move(op));
    out_.traced_us.push_back(open_us_);
  }

  // The host waits for the compute stream (the collectives it read back were waited for there).
  void add_host_sync(const HostSpan& wait, Phase phase) {
    close(wait.start_us);
    ScheduleOp op;
    op.name = "host_sync." + std::string(short_phase(phase)) + ".w" + std::to_string(syncs_++);
    op.stream = StreamKind::compute;
    op.phase = phase;
    op.unit = "trace";
    Work wait_work;
    host_sync(wait_work, op.name, "the host waited for the GPU");
    ComputeOp body;
    body.kernels = std::move(wait_work.kernels);
    op.body = body;
    host_from_us_ = wait.end_us;
    last_compute_ = static_cast<int>(ops().size());
    ops().push_back(std::move(op));
    out_.traced_us.push_back(0);
  }

  // One op per call the kernel holds (a coalesced launch holds several: consecutive p2p ops
  // replay as one group, as batch_isend_irecv issued them); the kernel's time is shared by bytes.
  void add_collective(const GpuWork& w) {
    const std::vector<CollectiveOp> calls = traced_collectives(w, trace_.world, trace_.path);
    std::uint64_t total_bytes = 0;
    for (const CollectiveOp& c : calls) total_bytes += c.bytes;
    const Phase phase = phase_of(w);
    // Held on its idle stream until another collective ended: its stream waited for that one's
    // (HSDP's all-reduce after its reduce-scatter: all_reduce_stream.wait_stream(rs_stream)).
    const int waited = waited_for(w);
    stream_end_us_[w.stream] = std::max(stream_end_us_[w.stream], w.start_us + w.dur_us);
    for (const CollectiveOp& c : calls) {
      ScheduleOp op;
      op.body = c;
      op.name = std::string(op_spec(c.kind).short_name()) + "." + short_phase(phase) + ".c" +
                std::to_string(collectives_++);
      op.stream = StreamKind::comm;
      op.phase = phase;
      op.unit = "trace";
      if (last_compute_ >= 0) op.deps = {last_compute_};
      if (waited >= 0) op.deps.push_back(waited);
      collective_end_us_.emplace_back(static_cast<int>(ops().size()), w.start_us + w.dur_us);
      ops().push_back(std::move(op));
      const double share = total_bytes > 0 ? static_cast<double>(c.bytes) / total_bytes
                                           : 1.0 / static_cast<double>(calls.size());
      out_.traced_us.push_back(w.dur_us * share);
    }
    out_.collective_us += w.dur_us;
  }

  // A collective hides behind the compute issued right after it, unless that compute waits for it.
  void link_hiding() {
    std::vector<ScheduleOp>& all = ops();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!all[i].is_collective()) continue;
      for (std::size_t j = i + 1; j < all.size(); ++j) {
        if (all[j].is_collective()) continue;
        const std::vector<int>& deps = all[j].deps;
        if (std::find(deps.begin(), deps.end(), static_cast<int>(i)) == deps.end())
          all[i].hides_behind = static_cast<int>(j);
        break;
      }
    }
  }

  std::vector<ScheduleOp>& ops() { return out_.schedule.ops; }

  const TraceEvents& trace_;
  const bool host_time_;
  std::int64_t main_tid_ = 0;
  TraceImport out_;
  double host_from_us_ = 0, gpu_end_us_ = 0;
  bool open_ = false;
  Phase open_phase_ = Phase::forward;
  ComputeOp open_op_;
  std::vector<int> open_deps_;
  double open_us_ = 0;
  int segment_ = 0, collectives_ = 0, syncs_ = 0, last_compute_ = -1;
  std::map<std::int64_t, double> stream_end_us_;
  std::vector<std::pair<int, double>> collective_end_us_;
};

}  // namespace

TraceImport trace_to_schedule(const TraceEvents& trace, bool host_time) {
  TraceImport out = Converter(trace, host_time).run();
  Schedule& s = out.schedule;
  s.plan = "trace";
  s.world = trace.world;
  s.rank = trace.rank;
  out.step = trace.step;
  out.compute_flops = traced_flops(trace);
  return out;
}

}  // namespace collreplay::trace
