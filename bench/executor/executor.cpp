#include "bench/executor/executor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "bench/app/stats.hpp"
#include "bench/compute/launch_order.hpp"
#include "common/errors.hpp"
#include "common/poll_backoff.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

bool runs_in(PassKind pass, const ScheduleOp& op) {
  if (pass == PassKind::overlapped) return true;
  return op.is_collective() == (pass == PassKind::comm_only);
}

// The streams ops run on: the compute engine's, then one per group (as PyTorch keeps one NCCL
// stream per process group), so that one group's collectives never queue behind another's.
constexpr int kComputeStream = 0;

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds);
  return text;
}

}  // namespace

struct Executor::OpRun {
  std::shared_ptr<StreamEvent> before, after;
  Clock::time_point issued_at, finished_at;
  bool issued = false, done = false;
};

Executor::Executor(const Schedule& schedule, const GroupComms& groups, ComputeEngine& engine,
                   const ExecutorOptions& options, AgreeMax agree_max)
    : schedule_(schedule),
      groups_(groups),
      engine_(engine),
      options_(options),
      agree_max_(std::move(agree_max)),
      collective_of_op_(schedule.ops.size(), -1),
      stream_of_op_(schedule.ops.size(), kComputeStream) {
  const std::vector<GroupKey> keys = groups.keys();
  streams_ = 1 + static_cast<int>(keys.size());
  std::vector<GemmShape> shapes;
  DType compute_dtype = DType::bf16;
  std::uint64_t kernel_launch_bytes = 0;
  bool kernels = false;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    for (int dep : op.deps)
      if (dep < 0 || dep >= static_cast<int>(i))
        throw UsageError("schedule op '" + op.name + "' depends on op " + std::to_string(dep) +
                         ", which is not an earlier op");
    if (op.is_collective()) {
      const GroupKey key = group_key(op.collective());
      Communicator& comm = groups.get(key);
      collective_of_op_[i] = static_cast<int>(collectives_.size());
      collectives_.push_back(prepare_collective(op, static_cast<int>(i), comm.size()));
      stream_of_op_[i] =
          1 + static_cast<int>(std::find(keys.begin(), keys.end(), key) - keys.begin());
    } else {
      shapes.insert(shapes.end(), op.compute().gemms.begin(), op.compute().gemms.end());
      if (!op.compute().gemms.empty()) compute_dtype = op.compute().dtype;
      kernels = kernels || !op.compute().kernels.empty();
      kernel_launch_bytes =
          std::max(kernel_launch_bytes, largest_kernel_launch_bytes(op.compute()));
    }
  }
  p2p_ = P2pGroups(schedule, collective_of_op_, collectives_);
  for (const PreparedCollective& call : collectives_) buffers_.plan(groups.get(call.key), call);
  compute_bytes_ = engine.reserve(shapes, compute_dtype);
  if (kernels) compute_bytes_ += engine.reserve_kernels(kernel_launch_bytes);
  engine.set_sync_timeout(options.timeout_s);
  buffers_.allocate();
}

const PreparedCollective* Executor::prepared(int op) const {
  const int index = collective_of_op_.at(op);
  return index < 0 ? nullptr : &collectives_[index];
}

std::vector<int> Executor::issued_with(int op) const {
  return collective_of_op_.at(op) < 0 ? std::vector<int>{} : p2p_.members(op);
}

void Executor::issue_group(int op) const {
  const PreparedCollective& call = collectives_[collective_of_op_[op]];
  Communicator& comm = groups_.get(call.key);
  const CollectiveBuffers::Pair& buffers = buffers_.of(call.key);
  if (!is_point_to_point(call.kind))
    return issue_collective(comm, call, buffers.send, buffers.recv);
  std::vector<P2pCall> calls;
  for (int member : issued_with(op)) {
    const std::vector<P2pCall> more =
        p2p_calls(comm, collectives_[collective_of_op_[member]], buffers.send, buffers.recv);
    calls.insert(calls.end(), more.begin(), more.end());
  }
  comm.p2p_group(calls);
}

std::vector<int> Executor::deps_in_pass(PassKind pass, int op) const {
  std::vector<int> deps;
  for (int dep : schedule_.ops[op].deps)
    if (runs_in(pass, schedule_.ops[dep])) deps.push_back(dep);
  return deps;
}

// Issues `op` and the ops of its p2p group; every member shares the group's events.
void Executor::issue_collective_op(int op, std::vector<OpRun>& runs) {
  const PreparedCollective& call = collectives_[collective_of_op_[op]];
  Communicator& comm = groups_.get(call.key);
  OpRun& run = runs[op];
  run.before = comm.record();
  run.issued_at = Clock::now();
  issue_group(op);
  run.after = comm.record();
  run.issued = true;
  for (int member : issued_with(op)) runs[member] = run;
}

void Executor::issue_compute_op(int op, std::vector<OpRun>& runs) {
  OpRun& run = runs[op];
  run.before = engine_.record();
  run.issued_at = Clock::now();
  engine_.issue(schedule_.ops[op].compute(), options_.compute_scale, {});
  run.after = engine_.record();
  run.issued = true;
}

void Executor::run_on_device(PassKind pass, std::vector<OpRun>& runs) {
  for (int i = 0; i < static_cast<int>(schedule_.ops.size()); ++i) {
    const ScheduleOp& op = schedule_.ops[i];
    if (!runs_in(pass, op)) continue;
    const std::vector<int> deps = deps_in_pass(pass, i);
    if (op.is_collective()) {
      if (p2p_.first(i) != i) continue;  // issued with the first op of its p2p group
      Communicator& comm = groups_.get(group_key(op.collective()));
      // Within one group the stream is in order; across streams a dependency is an event.
      for (int member : issued_with(i))
        for (int dep : deps_in_pass(pass, member))
          if (stream_of(dep) != stream_of(i)) comm.wait_on(runs[dep].after);
      issue_collective_op(i, runs);
    } else {
      std::vector<std::shared_ptr<StreamEvent>> waits;
      for (int dep : deps)
        if (schedule_.ops[dep].is_collective()) waits.push_back(runs[dep].after);
      // The wait goes in its own empty op, so that the op's "before" event is recorded after it.
      if (!waits.empty()) engine_.issue(ComputeOp{}, 1.0, waits);
      issue_compute_op(i, runs);
    }
  }
  wait_on_device(pass, runs);
}

// Waits for every issued op under the watchdog: each stream's ops finish in order, so only the
// first unfinished op of each stream is polled. When no op finishes for timeout_s, the earliest
// unfinished op in schedule order is the one stuck (its dependencies are earlier, so done).
// Polling the comm streams' events also surfaces NCCL's asynchronous errors.
void Executor::wait_on_device(PassKind pass, std::vector<OpRun>& runs) {
  std::vector<std::vector<int>> order(streams_);
  for (int i = 0; i < static_cast<int>(runs.size()); ++i)
    if (runs[i].issued) order[stream_of(i)].push_back(i);
  std::vector<std::size_t> next(streams_, 0);
  Clock::time_point last_progress = Clock::now();
  for (;;) {
    bool progressed = false, all_done = true;
    int first_unfinished = static_cast<int>(runs.size());
    for (int s = 0; s < streams_; ++s) {
      while (next[s] < order[s].size() && runs[order[s][next[s]]].after->query()) {
        runs[order[s][next[s]]].done = true;
        ++next[s];
        progressed = true;
      }
      if (next[s] < order[s].size()) {
        all_done = false;
        first_unfinished = std::min(first_unfinished, order[s][next[s]]);
      }
    }
    if (all_done) return;
    const Clock::time_point now = Clock::now();
    if (progressed)
      last_progress = now;
    else if (options_.timeout_s > 0 && ms_between(last_progress, now) > options_.timeout_s * 1e3)
      throw TimeoutError(describe_op(schedule_.ops[first_unfinished]) + " did not finish: no op " +
                         "of the replay " + std::string(pass_name(pass)) +
                         " step finished within " + seconds_text(options_.timeout_s) + " s");
    std::this_thread::yield();
  }
}

void Executor::run_on_host(PassKind pass, std::vector<OpRun>& runs) {
  const int count = static_cast<int>(schedule_.ops.size());
  // The next op to issue on a stream: the first of its p2p group (the others go with it).
  auto next_on = [&](int stream, int from) {
    for (int i = from; i < count; ++i)
      if (runs_in(pass, schedule_.ops[i]) && stream_of(i) == stream && p2p_.first(i) == i)
        return i;
    return count;
  };
  auto ready = [&](int op) {
    const std::vector<int> members =
        collective_of_op_[op] < 0 ? std::vector<int>{op} : issued_with(op);
    for (int member : members)
      for (int dep : deps_in_pass(pass, member))
        if (!runs[dep].done) return false;
    return true;
  };
  // One op in flight per stream: the compute worker, and one request queue per group.
  std::vector<int> next(streams_), in_flight(streams_, -1);
  for (int s = 0; s < streams_; ++s) next[s] = next_on(s, 0);
  auto busy = [&] {
    for (int s = 0; s < streams_; ++s)
      if (in_flight[s] >= 0 || next[s] < count) return true;
    return false;
  };
  PollBackoff backoff;
  while (busy()) {
    bool progressed = false;
    for (int s = 0; s < streams_; ++s) {
      const int op = in_flight[s];
      if (op >= 0 && runs[op].after->query()) {
        const Clock::time_point now = Clock::now();
        for (int member : s == kComputeStream ? std::vector<int>{op} : issued_with(op)) {
          runs[member].finished_at = now;
          runs[member].done = true;
        }
        in_flight[s] = -1;
        progressed = true;
      }
    }
    for (int s = 0; s < streams_; ++s) {
      if (in_flight[s] >= 0 || next[s] >= count || !ready(next[s])) continue;
      if (s == kComputeStream)
        issue_compute_op(next[s], runs);
      else
        issue_collective_op(next[s], runs);
      in_flight[s] = next[s];
      next[s] = next_on(s, next[s] + 1);
      progressed = true;
    }
    if (progressed) {
      backoff.reset();
      continue;
    }
    int oldest_comm = -1;
    for (int s = 1; s < streams_; ++s)
      if (in_flight[s] >= 0 && (oldest_comm < 0 || in_flight[s] < oldest_comm))
        oldest_comm = in_flight[s];
    if (oldest_comm < 0 && in_flight[kComputeStream] < 0)
      throw RuntimeError("replay: no op can start (dependency cycle in the schedule?)");
    if (oldest_comm >= 0 && options_.timeout_s > 0 &&
        ms_between(runs[oldest_comm].issued_at, Clock::now()) > options_.timeout_s * 1e3)
      throw TimeoutError(describe_op(schedule_.ops[oldest_comm]) + " did not finish within " +
                         seconds_text(options_.timeout_s) + " s in the replay " +
                         std::string(pass_name(pass)) + " step");
    // Only the compute can change anything now: block on it instead of spinning beside the BLAS
    // threads (with a collective in flight, keep polling: that is what progresses MPI).
    if (oldest_comm < 0)
      runs[in_flight[kComputeStream]].after->synchronize();
    else
      backoff.pause();  // yields at first, then sleeps: the BLAS threads need this core
  }
}

double Executor::run_step(PassKind pass, std::vector<double>& op_ms,
                          std::vector<double>* op_start_ms, std::vector<double>* op_end_ms) {
  std::vector<OpRun> runs(schedule_.ops.size());
  const bool device = engine_.enqueues_on_device();
  engine_.begin_step();
  const Clock::time_point start = Clock::now();
  // Device: an origin event on every stream, recorded while the streams are idle, so an op's
  // start is measured on its own stream's clock (events of different kinds, e.g. MPI host events
  // beside CUDA events, cannot be compared with each other).
  std::map<const void*, std::shared_ptr<StreamEvent>> origins;
  if (device) {
    origins[&engine_] = engine_.record();
    for (Communicator* comm : groups_.all()) origins[comm] = comm->record();
  }
  if (device)
    run_on_device(pass, runs);
  else
    run_on_host(pass, runs);
  const double step_ms = ms_between(start, Clock::now());

  op_ms.assign(schedule_.ops.size(), 0.0);
  if (op_start_ms) op_start_ms->assign(schedule_.ops.size(), 0.0);
  if (op_end_ms) op_end_ms->assign(schedule_.ops.size(), 0.0);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const OpRun& run = runs[i];
    if (!run.issued) continue;
    const ScheduleOp& op = schedule_.ops[i];
    const bool host_collective = op.is_collective() && !device;
    op_ms[i] = host_collective ? ms_between(run.issued_at, run.finished_at)
                               : run.after->elapsed_ms_since(*run.before);
    // Host: an op starts when issued (its stream is free and its dependencies are done then).
    double begin_ms = ms_between(start, run.issued_at);
    if (device) {
      const void* stream =
          op.is_collective() ? static_cast<const void*>(&groups_.get(group_key(op.collective())))
                             : static_cast<const void*>(&engine_);
      begin_ms = run.before->elapsed_ms_since(*origins.at(stream));
    }
    if (op_start_ms) (*op_start_ms)[i] = begin_ms;
    if (op_end_ms) (*op_end_ms)[i] = begin_ms + op_ms[i];
  }
  return step_ms;
}

// Every rank enters a step together. A rank stopped between steps leaves no op of the schedule
// in flight on the others: they wait here, and the timeout names the pass and the step.
void Executor::step_barrier(PassKind pass, int step) const {
  try {
    groups_.world().barrier();
  } catch (const TimeoutError& e) {
    throw TimeoutError("the step barrier before " + std::string(pass_name(pass)) + " step " +
                       std::to_string(step + 1) +
                       " (a rank has not finished the step before): " + e.what());
  }
}

void Executor::warm_up() {
  std::vector<double> ignored;
  for (int step = 0; step < options_.warmup_steps; ++step) {
    step_barrier(PassKind::overlapped, step);
    run_step(PassKind::overlapped, ignored);
  }
}

PassResult Executor::run_pass(PassKind pass) {
  PassResult result;
  result.pass = pass;
  std::vector<std::vector<double>> op_ms_by_step, starts_by_step, ends_by_step;
  const int cap = options_.steps > 0 ? options_.steps : std::max(options_.max_steps, 1);
  for (int step = 0; step < cap; ++step) {
    step_barrier(pass, step);
    std::vector<double> op_ms, starts, ends;
    result.step_ms.push_back(run_step(pass, op_ms, &starts, &ends));
    op_ms_by_step.push_back(std::move(op_ms));
    starts_by_step.push_back(std::move(starts));
    ends_by_step.push_back(std::move(ends));
    result.agreed_step_ms.push_back(agree_max_(result.step_ms.back()));

    const std::size_t window = std::min<std::size_t>(result.agreed_step_ms.size(), kStableWindow);
    result.spread = spread(std::span(result.agreed_step_ms).last(window));
    result.stable = static_cast<int>(window) >= std::min(options_.min_steps, kStableWindow) &&
                    result.spread <= options_.stable_spread;
    if (options_.steps == 0 && step + 1 >= options_.min_steps && result.stable) break;
  }
  result.op_ms.assign(schedule_.ops.size(), 0.0);
  std::vector<double> samples;
  for (std::size_t i = 0; i < schedule_.ops.size(); ++i) {
    samples.clear();
    for (const std::vector<double>& step : op_ms_by_step) samples.push_back(step[i]);
    result.op_ms[i] = median(samples);
  }
  const double median_step_ms = median(result.step_ms);
  std::size_t typical = 0;
  for (std::size_t k = 1; k < result.step_ms.size(); ++k)
    if (std::abs(result.step_ms[k] - median_step_ms) <
        std::abs(result.step_ms[typical] - median_step_ms))
      typical = k;
  result.op_start_ms = std::move(starts_by_step.at(typical));
  result.op_end_ms = std::move(ends_by_step.at(typical));
  return result;
}

}  // namespace collreplay
