#include "bench/perf/timing/perf_timing.hpp"

#include <chrono>

#include "bench/app/cross_rank.hpp"
#include "bench/perf/timing/perf_samples.hpp"
#include "collectives/mpi/mpi_watched.hpp"

namespace collreplay {
namespace {

// In place the op's one buffer is buffer_a (OpSpec::issue applies the layout's offsets).
void issue(PerfContext& ctx, const OpLayout& layout, Placement p) {
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  ctx.op.issue(ctx.comm, layout, ctx.buffer_a, recv, ctx.options.dtype);
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
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  issue_one();
  ctx.comm.wait_all(label + ", warm-up");
  const double first_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
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

// On a GPU stream the ops queue back to back, as in nccl-tests, with an event after each sample;
// on the host backend each op is waited for and timed alone, as IMB does. At every look the
// ranks combine their samples, so they stop together.
TimedOps time_ops(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label,
                  const SamplingPlan& plan) {
  const bool pipelined = ctx.comm.backend() == BackendKind::nccl;
  std::vector<double> samples_us;  // this rank's
  TimedOps timed;
  timed.ops_per_sample = plan.ops_per_sample;
  ctx.comm.barrier();
  std::size_t taken = 0, look = plan.first_look;
  for (;;) {
    if (pipelined) {
      std::vector<std::shared_ptr<StreamEvent>> events{ctx.comm.record()};
      for (std::size_t sample = taken; sample < look; ++sample) {
        for (int i = 0; i < plan.ops_per_sample; ++i) issue(ctx, layout, p);
        events.push_back(ctx.comm.record());
      }
      ctx.comm.wait_all(label + ", timed iterations");
      append_samples_between(events, plan.ops_per_sample, samples_us);
    } else {
      for (std::size_t sample = taken; sample < look; ++sample) {
        const auto start = ctx.comm.record();
        issue(ctx, layout, p);
        const auto stop = ctx.comm.record();
        stop->synchronize();
        start->synchronize();
        samples_us.push_back(stop->elapsed_ms_since(*start) * 1e3);
      }
    }
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
  timed.ops = taken * static_cast<std::size_t>(plan.ops_per_sample);
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
  for (int launch = 0; launch < ctx.options.graph_launches; ++launch) {
    graph.launch();
    events.push_back(ctx.comm.record());
  }
  ctx.comm.wait_all(label + ", timed graph launches");
  TimedOps timed;
  timed.ops_per_sample = ctx.options.iterations;
  append_samples_between(events, ctx.options.iterations, timed.samples_us);
  combine_samples_across_ranks(timed.samples_us, ctx.options.report, MPI_COMM_WORLD,
                               ctx.options.timeout_seconds);
  timed.ops = static_cast<std::size_t>(ctx.options.graph_launches) *
              static_cast<std::size_t>(ctx.options.iterations);
  return timed;
}

}  // namespace collreplay
