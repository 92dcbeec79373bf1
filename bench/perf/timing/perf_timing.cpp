#include "bench/perf/timing/perf_timing.hpp"

#include <chrono>

#include "bench/app/cross_rank.hpp"
#include "bench/perf/timing/perf_samples.hpp"
#include "collectives/mpi/mpi_watched.hpp"

namespace collreplay {
namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// One planned op: -m ops of the case in one group (one op without -m). In place the op's one
// buffer is buffer_a (OpSpec::issue applies the layout's offsets).
void issue(PerfContext& ctx, const OpLayout& layout, Placement p) {
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  const auto one = [&] { ctx.op.issue(ctx.comm, layout, ctx.buffer_a, recv, ctx.options.dtype); };
  if (ctx.options.agg_iters <= 1) return one();
  ctx.comm.grouped([&] {
    for (int i = 0; i < ctx.options.agg_iters; ++i) one();
  });
}

// The host's issue time per op, combined across the ranks as the times are.
double combined_cpu_us(const PerfContext& ctx, double issue_us, std::size_t ops) {
  std::vector<double> value{ops > 0 ? issue_us / static_cast<double>(ops) : 0};
  combine_samples_across_ranks(value, ctx.options.report, MPI_COMM_WORLD,
                               ctx.options.timeout_seconds);
  return value[0];
}

// The time between each two consecutive events, over the ops issued between them, in us.
void append_samples_between(const std::vector<std::shared_ptr<StreamEvent>>& events,
                            double ops_per_sample, std::vector<double>& samples_us) {
  for (auto& event : events) event->synchronize();
  for (std::size_t i = 1; i < events.size(); ++i)
    samples_us.push_back(events[i]->elapsed_ms_since(*events[i - 1]) * 1e3 / ops_per_sample);
}

}  // namespace

WarmUp warm_up(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label) {
  // On the host backend each op is waited for before the next is issued: MPI forbids reusing the
  // buffers of a pending op.
  const bool pipelined = ctx.comm.backend() == BackendKind::nccl;
  const auto issue_one = [&] {
    issue(ctx, layout, p);
    if (!pipelined) ctx.comm.wait_all(label + ", warm-up");
  };
  WarmUp done;
  if (ctx.options.stable_pct <= 0) {
    for (; done.ops < ctx.options.warmup_iterations; ++done.ops) issue_one();
    ctx.comm.wait_all(label + ", warm-up");
    return done;
  }
  // The first op alone, timed on the host: it may pay for a first use, which the rest must not
  // be sized by, and the ranks agree on its time so that they issue the same warm-up.
  const Clock::time_point start = Clock::now();
  issue_one();
  ctx.comm.wait_all(label + ", warm-up");
  const double first_us = us_since(start);
  const double timeout_s = ctx.options.timeout_seconds;
  done.op_us = max_across_ranks(MPI_COMM_WORLD, first_us, timeout_s);
  const int extra = extra_warmup_ops(done.op_us, ctx.options.warmup_iterations);
  done.ops = 1 + extra;
  if (extra == 0) return done;
  const std::shared_ptr<StreamEvent> before = ctx.comm.record();
  for (int i = 0; i < extra; ++i) issue_one();
  const std::shared_ptr<StreamEvent> after = ctx.comm.record();
  after->synchronize();
  before->synchronize();
  done.op_us = max_across_ranks(MPI_COMM_WORLD, after->elapsed_ms_since(*before) * 1e3 / extra,
                                timeout_s);
  return done;
}

namespace {

// The samples of ops queued back to back on a GPU stream (-z 0), as in nccl-tests: an event
// after each sample of plan.ops_per_sample ops.
void queue_samples(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label,
                   const SamplingPlan& plan, std::size_t samples, std::vector<double>& samples_us,
                   double& issue_us) {
  std::vector<std::shared_ptr<StreamEvent>> events{ctx.comm.record()};
  for (std::size_t sample = 0; sample < samples; ++sample) {
    const Clock::time_point issued = Clock::now();
    for (int i = 0; i < plan.ops_per_sample; ++i) issue(ctx, layout, p);
    issue_us += us_since(issued);
    events.push_back(ctx.comm.record());
  }
  ctx.comm.wait_all(label + ", timed iterations");
  append_samples_between(events, plan.ops_per_sample * ctx.options.agg_iters, samples_us);
}

// One op per sample, waited for before the next: the host backend always (MPI forbids reusing
// a pending op's buffers; IMB times alike), and -z 1..3. -z 1 times the wait and a barrier with
// the op, -z 3 a barrier after it outside the sample, as nccl-tests' modes do.
void waited_samples(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label,
                    std::size_t samples, std::vector<double>& samples_us, double& issue_us) {
  const int blocking = ctx.options.blocking;
  for (std::size_t sample = 0; sample < samples; ++sample) {
    const auto start = ctx.comm.record();
    const Clock::time_point issued = Clock::now();
    issue(ctx, layout, p);
    issue_us += us_since(issued);
    if (blocking == 1) {
      ctx.comm.wait_all(label + ", timed iteration");
      ctx.comm.barrier();
    }
    const auto stop = ctx.comm.record();
    stop->synchronize();
    start->synchronize();
    samples_us.push_back(stop->elapsed_ms_since(*start) * 1e3 / ctx.options.agg_iters);
    if (blocking == 3) ctx.comm.barrier();
  }
}

}  // namespace

// At every look the ranks combine their samples, so they stop together.
TimedOps time_ops(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label,
                  const SamplingPlan& plan) {
  const bool queued = ctx.comm.backend() == BackendKind::nccl && ctx.options.blocking == 0;
  std::vector<double> samples_us;  // this rank's
  double issue_us = 0;
  TimedOps timed;
  timed.ops_per_sample = plan.ops_per_sample * ctx.options.agg_iters;
  ctx.comm.barrier();
  std::size_t taken = 0, look = plan.first_look;
  for (;;) {
    if (queued)
      queue_samples(ctx, layout, p, label, plan, look - taken, samples_us, issue_us);
    else
      waited_samples(ctx, layout, p, label, look - taken, samples_us, issue_us);
    taken = look;
    timed.samples_us = samples_us;
    combine_samples_across_ranks(timed.samples_us, ctx.options.report, MPI_COMM_WORLD,
                                 ctx.options.timeout_seconds);
    if (taken >= plan.max_samples) break;
    if (plan.stable_pct > 0 &&
        median_is_stable(summarize_samples(timed.samples_us), plan.stable_pct))
      break;
    look = next_look(taken, plan.max_samples);
  }
  timed.ops = taken * static_cast<std::size_t>(timed.ops_per_sample);
  timed.cpu_us = combined_cpu_us(ctx, issue_us, timed.ops);
  return timed;
}

std::unique_ptr<CapturedWork> capture_case(PerfContext& ctx, const OpLayout& layout, Placement p,
                                           const std::string& label) {
  issue(ctx, layout, p);
  ctx.comm.wait_all(label + ", before capture");
  std::unique_ptr<CapturedWork> graph = ctx.comm.capture([&] {
    for (int i = 0; i < ctx.options.iterations; ++i) issue(ctx, layout, p);
  });
  graph->launch();
  ctx.comm.wait_all(label + ", graph warm-up");
  return graph;
}

TimedOps time_graph_launches(PerfContext& ctx, CapturedWork& graph, const std::string& label) {
  ctx.comm.barrier();
  std::vector<std::shared_ptr<StreamEvent>> events{ctx.comm.record()};
  double issue_us = 0;
  for (int launch = 0; launch < ctx.options.graph_launches; ++launch) {
    const Clock::time_point issued = Clock::now();
    graph.launch();
    issue_us += us_since(issued);
    events.push_back(ctx.comm.record());
  }
  ctx.comm.wait_all(label + ", timed graph launches");
  TimedOps timed;
  timed.ops_per_sample = ctx.options.iterations * ctx.options.agg_iters;
  append_samples_between(events, timed.ops_per_sample, timed.samples_us);
  combine_samples_across_ranks(timed.samples_us, ctx.options.report, MPI_COMM_WORLD,
                               ctx.options.timeout_seconds);
  timed.ops = static_cast<std::size_t>(ctx.options.graph_launches) *
              static_cast<std::size_t>(timed.ops_per_sample);
  timed.cpu_us = combined_cpu_us(ctx, issue_us, timed.ops);
  return timed;
}

}  // namespace collreplay
