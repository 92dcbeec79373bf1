// The executor: replays any Schedule on the group communicators and a compute engine, in three
// passes (compute only, comm only, overlapped), each repeated until its step time is stable.
//
// Issue logic. Device engines (enqueues_on_device): every op of a step is enqueued at once in
// schedule order; dependencies travel as events (the compute engine waits for the events it is
// given; a comm stream waits through cudaStreamWaitEvent). Host engines: an event loop on the
// main thread issues an op once its dependencies are done and its stream is free, and keeps
// calling query() on the collectives in flight (which progresses MPI) while the BLAS worker
// thread computes. Every stream is in order: the compute stream, and one comm stream per group
// (as PyTorch keeps one NCCL stream per process group), so an expert group's all-to-all never
// queues behind the data-parallel group's prefetch all-gather.
//
// Point-to-point ops. Consecutive send / recv / send_recv ops of one group (no other collective
// between them, none waiting for an op issued after the first) are issued as one p2p group, as
// torch's batch_isend_irecv and 1F1B pipelines do: otherwise two ranks that both send first
// would wait for each other. The group starts once every member's dependencies are done, and
// every member is timed as the whole group (they complete together).
//
// Watchdog (timeout_s > 0). Host: a collective in flight longer than timeout_s; device: no op of
// the step finishing for timeout_s. Either throws TimeoutError naming the first unfinished op
// (kind, name, group, bytes, layer); nothing waits without the timeout.
//
// Timing. Step: wall clock from a barrier to every stream drained. Op: events before and after
// it on its own stream (device; host compute) or issue-to-observed-completion (host collective),
// so waiting on dependencies is never counted as the op's time.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/compute/compute_engine.hpp"
#include "bench/executor/collective_plan.hpp"
#include "bench/executor/group_comms.hpp"
#include "bench/executor/p2p_groups.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

enum class PassKind { compute_only, comm_only, overlapped };
std::string_view pass_name(PassKind pass);

struct ExecutorOptions {
  int steps = 0;                // > 0: exactly this many timed steps per pass; 0: until stable
  int min_steps = 3;            // until-stable mode: at least this many
  int max_steps = 20;           // until-stable mode: the cap
  double stable_spread = 0.02;  // (max - min) / median of the last kStableWindow steps
  int warmup_steps = 1;         // overlapped steps run before any pass, untimed
  double compute_scale = 1;
  double timeout_s = 0;  // watchdog (see above); 0: off
};

struct PassResult {
  PassKind pass = PassKind::overlapped;
  std::vector<double> step_ms;         // this rank's step times
  std::vector<double> agreed_step_ms;  // the slowest rank's time of each step
  std::vector<double> op_ms;           // per schedule op: this rank's median; 0 if not run
  // Per schedule op, when it ran in this rank's median step (the step whose time is nearest the
  // median of step_ms, so that starts and ends come from one real step): ms from the step's start
  // to the op's start and end on its own stream; 0 for ops not in the pass. Plots draw the
  // step's timeline from these.
  std::vector<double> op_start_ms, op_end_ms;
  bool stable = false;
  double spread = 0;  // of the last window of agreed_step_ms
};

// "all_gather 'ag.fwd.layers.3' (group data_parallel, 64 MiB, layer 3, unit layers.3)": how
// timeout messages name an op.
std::string describe_op(const ScheduleOp& op);

class Executor {
 public:
  static constexpr int kStableWindow = 5;

  // Prepares every collective and allocates every buffer (collective and GEMM operands).
  Executor(const Schedule& schedule, const GroupComms& groups, ComputeEngine& engine,
           const ExecutorOptions& options, AgreeMax agree_max);

  std::uint64_t collective_buffer_bytes() const { return buffers_.total_bytes(); }
  std::uint64_t compute_buffer_bytes() const { return compute_bytes_; }
  double compute_scale() const { return options_.compute_scale; }
  void set_compute_scale(double scale) { options_.compute_scale = scale; }

  void warm_up();
  PassResult run_pass(PassKind pass);
  // Runs one step of `pass` and returns its wall time in ms (no barrier, no stats); fills each
  // op's time and, when given, its start and end relative to the step's start.
  double run_step(PassKind pass, std::vector<double>& op_ms,
                  std::vector<double>* op_start_ms = nullptr,
                  std::vector<double>* op_end_ms = nullptr);

  const Schedule& schedule() const { return schedule_; }
  const GroupComms& groups() const { return groups_; }
  const CollectiveBuffers& buffers() const { return buffers_; }
  // Prepared call of every collective op (nullptr for compute ops).
  const PreparedCollective* prepared(int op) const;
  // The ops issued together with `op` as one p2p group, `op` first, when it leads one; {op} for
  // any other collective; empty for a p2p op issued with an earlier one, and for compute ops.
  std::vector<int> issued_with(int op) const;
  // Issues the collective `op` leads (issued_with) on its group's communicator and buffers.
  void issue_group(int op) const;

 private:
  struct OpRun;
  void issue_collective_op(int op, std::vector<OpRun>& runs);
  void issue_compute_op(int op, std::vector<OpRun>& runs);
  void run_on_device(PassKind pass, std::vector<OpRun>& runs);
  void wait_on_device(PassKind pass, std::vector<OpRun>& runs);
  void run_on_host(PassKind pass, std::vector<OpRun>& runs);
  std::vector<int> deps_in_pass(PassKind pass, int op) const;
  int stream_of(int op) const { return stream_of_op_[static_cast<std::size_t>(op)]; }
  void step_barrier(PassKind pass, int step) const;

  const Schedule& schedule_;
  const GroupComms& groups_;
  ComputeEngine& engine_;
  ExecutorOptions options_;
  AgreeMax agree_max_;
  std::vector<PreparedCollective> collectives_;
  std::vector<int> collective_of_op_;  // index into collectives_, -1 for compute ops
  P2pGroups p2p_;
  std::vector<int> stream_of_op_;  // 0: compute; 1 + index in groups_.keys()
  int streams_ = 1;
  CollectiveBuffers buffers_;
  std::uint64_t compute_bytes_ = 0;
};

}  // namespace collreplay
