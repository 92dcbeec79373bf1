#include "bench/executor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "bench/stats.hpp"
#include "bench/stream_wait.hpp"
#include "common/errors.hpp"

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

std::string describe(const ScheduleOp& op) {
  std::string text = "'" + op.name + "' (unit " + op.unit;
  if (op.layer >= 0) text += ", layer " + std::to_string(op.layer);
  if (op.is_collective()) text += ", group " + std::string(group_kind_name(op.collective().group));
  return text + ")";
}

}  // namespace

std::string_view pass_name(PassKind pass) {
  switch (pass) {
    case PassKind::compute_only: return "compute_only";
    case PassKind::comm_only: return "comm_only";
    case PassKind::overlapped: return "overlapped";
  }
  return "?";
}

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
      collective_of_op_(schedule.ops.size(), -1) {
  std::vector<GemmShape> shapes;
  DType compute_dtype = DType::bf16;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    for (int dep : op.deps)
      if (dep < 0 || dep >= static_cast<int>(i))
        throw UsageError("schedule op '" + op.name + "' depends on op " + std::to_string(dep) +
                         ", which is not an earlier op");
    if (op.is_collective()) {
      Communicator& comm = groups.get(op.collective().group);
      collective_of_op_[i] = static_cast<int>(collectives_.size());
      collectives_.push_back(prepare_collective(op, static_cast<int>(i), comm.size()));
      buffers_.plan(comm, collectives_.back());
    } else {
      shapes.insert(shapes.end(), op.compute().gemms.begin(), op.compute().gemms.end());
      compute_dtype = op.compute().dtype;
    }
  }
  compute_bytes_ = engine.reserve(shapes, compute_dtype);
  buffers_.allocate();
}

const PreparedCollective* Executor::prepared(int op) const {
  const int index = collective_of_op_.at(op);
  return index < 0 ? nullptr : &collectives_[index];
}

std::vector<int> Executor::deps_in_pass(PassKind pass, int op) const {
  std::vector<int> deps;
  for (int dep : schedule_.ops[op].deps)
    if (runs_in(pass, schedule_.ops[dep])) deps.push_back(dep);
  return deps;
}

void Executor::issue_collective_op(int op, std::vector<OpRun>& runs) {
  const PreparedCollective& call = collectives_[collective_of_op_[op]];
  Communicator& comm = groups_.get(call.group);
  const CollectiveBuffers::Pair& buffers = buffers_.of(call.group);
  OpRun& run = runs[op];
  run.before = comm.record();
  run.issued_at = Clock::now();
  issue_collective(comm, call, buffers.send, buffers.recv);
  run.after = comm.record();
  run.issued = true;
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
  int previous_comm = -1;
  for (int i = 0; i < static_cast<int>(schedule_.ops.size()); ++i) {
    const ScheduleOp& op = schedule_.ops[i];
    if (!runs_in(pass, op)) continue;
    std::vector<int> deps = deps_in_pass(pass, i);
    if (op.is_collective()) {
      // One logical comm stream: a collective on another group's stream waits for the last one.
      if (previous_comm >= 0) deps.push_back(previous_comm);
      Communicator& comm = groups_.get(op.collective().group);
      for (int dep : deps) {
        const ScheduleOp& before = schedule_.ops[dep];
        const bool same_stream =
            before.is_collective() && before.collective().group == op.collective().group;
        if (!same_stream) stream_wait(comm.native_stream(), *runs[dep].after);
      }
      issue_collective_op(i, runs);
      previous_comm = i;
    } else {
      std::vector<std::shared_ptr<StreamEvent>> waits;
      for (int dep : deps)
        if (schedule_.ops[dep].is_collective()) waits.push_back(runs[dep].after);
      // The wait goes in its own empty op, so that the op's "before" event is recorded after it.
      if (!waits.empty()) engine_.issue(ComputeOp{}, 1.0, waits);
      issue_compute_op(i, runs);
    }
  }
  engine_.synchronize();
  const std::string what_for = "replay " + std::string(pass_name(pass)) + " step";
  for (Communicator* comm : groups_.all()) comm->wait_all(what_for);
  for (OpRun& run : runs)
    if (run.issued) run.done = true;
}

void Executor::run_on_host(PassKind pass, std::vector<OpRun>& runs) {
  const int count = static_cast<int>(schedule_.ops.size());
  auto next_on = [&](bool collective, int from) {
    for (int i = from; i < count; ++i)
      if (runs_in(pass, schedule_.ops[i]) && schedule_.ops[i].is_collective() == collective)
        return i;
    return count;
  };
  auto ready = [&](int op) {
    for (int dep : deps_in_pass(pass, op))
      if (!runs[dep].done) return false;
    return true;
  };
  int next_comm = next_on(true, 0), next_compute = next_on(false, 0);
  int comm_in_flight = -1, compute_in_flight = -1;
  while (comm_in_flight >= 0 || compute_in_flight >= 0 || next_comm < count ||
         next_compute < count) {
    bool progressed = false;
    if (comm_in_flight >= 0 && runs[comm_in_flight].after->query()) {
      runs[comm_in_flight].finished_at = Clock::now();
      runs[comm_in_flight].done = true;
      comm_in_flight = -1;
      progressed = true;
    }
    if (compute_in_flight >= 0 && runs[compute_in_flight].after->query()) {
      runs[compute_in_flight].done = true;
      compute_in_flight = -1;
      progressed = true;
    }
    if (compute_in_flight < 0 && next_compute < count && ready(next_compute)) {
      issue_compute_op(next_compute, runs);
      compute_in_flight = next_compute;
      next_compute = next_on(false, next_compute + 1);
      progressed = true;
    }
    if (comm_in_flight < 0 && next_comm < count && ready(next_comm)) {
      issue_collective_op(next_comm, runs);
      comm_in_flight = next_comm;
      next_comm = next_on(true, next_comm + 1);
      progressed = true;
    }
    if (progressed) continue;
    if (comm_in_flight < 0 && compute_in_flight < 0)
      throw RuntimeError("replay: no op can start (dependency cycle in the schedule?)");
    if (comm_in_flight >= 0 && options_.timeout_s > 0 &&
        ms_between(runs[comm_in_flight].issued_at, Clock::now()) > options_.timeout_s * 1e3)
      throw TimeoutError("collective " + describe(schedule_.ops[comm_in_flight]) +
                         " did not finish within " + std::to_string(options_.timeout_s) +
                         " s in the " + std::string(pass_name(pass)) + " pass");
    // Only the compute can change anything now: block on it instead of spinning beside the BLAS
    // threads (with a collective in flight, keep polling: that is what progresses MPI).
    if (comm_in_flight < 0)
      runs[compute_in_flight].after->synchronize();
    else
      std::this_thread::yield();
  }
}

double Executor::run_step(PassKind pass, std::vector<double>& op_ms,
                          std::vector<double>* op_start_ms, std::vector<double>* op_end_ms) {
  std::vector<OpRun> runs(schedule_.ops.size());
  const bool device = engine_.enqueues_on_device();
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
      const void* stream = op.is_collective()
                               ? static_cast<const void*>(&groups_.get(op.collective().group))
                               : static_cast<const void*>(&engine_);
      begin_ms = run.before->elapsed_ms_since(*origins.at(stream));
    }
    if (op_start_ms) (*op_start_ms)[i] = begin_ms;
    if (op_end_ms) (*op_end_ms)[i] = begin_ms + op_ms[i];
  }
  return step_ms;
}

void Executor::warm_up() {
  std::vector<double> ignored;
  for (int step = 0; step < options_.warmup_steps; ++step) {
    groups_.world().barrier();
    run_step(PassKind::overlapped, ignored);
  }
}

PassResult Executor::run_pass(PassKind pass) {
  PassResult result;
  result.pass = pass;
  std::vector<std::vector<double>> op_ms_by_step, starts_by_step, ends_by_step;
  const int cap = options_.steps > 0 ? options_.steps : std::max(options_.max_steps, 1);
  for (int step = 0; step < cap; ++step) {
    groups_.world().barrier();
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
