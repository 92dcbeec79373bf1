#include "bench/replay/measure/replay_measure.hpp"

#include <algorithm>
#include <cstdio>
#include <span>

#include "bench/app/cross_rank.hpp"
#include "bench/replay/measure/graph_step.hpp"
#include "bench/replay/measure/replay_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "workloads/p2p_batches.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step/host_time_file.hpp"

namespace collreplay {
namespace {

void say(int rank, const std::string& line) {
  if (rank == 0) std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

// `own_ops`: the ranks' op lists differ (a pipeline's stages): each rank's op times stand for
// its own ops, as for op lists of different lengths.
PassSummary summarize(const PassResult& result, double timeout_s, bool own_ops) {
  PassSummary s;
  s.pass = result.pass;
  s.step_ms = median(result.agreed_step_ms);
  s.step_samples_ms = result.agreed_step_ms;
  s.steps = static_cast<int>(result.step_ms.size());
  s.spread = result.spread;
  s.stable = result.stable;
  const double my_step_ms = median(result.step_ms);
  const auto step_stats =
      gather_stats_to_root(MPI_COMM_WORLD, std::span(&my_step_ms, 1), timeout_s);
  if (!step_stats.empty()) s.rank_step_ms = step_stats[0];
  const auto steps_by_rank =
      gather_rows_to_root(MPI_COMM_WORLD, std::span(&my_step_ms, 1), timeout_s);
  for (const std::vector<double>& row : steps_by_rank) s.rank_step_ms_all.push_back(row[0]);
  // Per-rank traces can import to op lists of different lengths (each rank's own kernels split
  // its compute): a per-op gather needs one length, so each rank's op times then stand for its
  // own ops and rank 0 reports its own.
  if (!same_size_on_every_rank(MPI_COMM_WORLD, result.op_ms.size(), timeout_s) || own_ops) {
    for (double v : result.op_ms) s.op_ms.push_back({v, v, v, 0});
    s.op_start_ms = result.op_start_ms;
    s.op_end_ms = result.op_end_ms;
    return s;
  }
  s.op_ms = gather_stats_to_root(MPI_COMM_WORLD, result.op_ms, timeout_s);
  // The timeline of the slowest rank: its op starts and ends within one of its steps.
  const auto starts = gather_rows_to_root(MPI_COMM_WORLD, result.op_start_ms, timeout_s);
  const auto ends = gather_rows_to_root(MPI_COMM_WORLD, result.op_end_ms, timeout_s);
  if (!starts.empty()) {
    s.op_start_ms = starts.at(static_cast<std::size_t>(s.rank_step_ms.slowest_rank));
    s.op_end_ms = ends.at(static_cast<std::size_t>(s.rank_step_ms.slowest_rank));
  }
  return s;
}

std::vector<double> slowest(const std::vector<CrossRankStat>& stats) {
  std::vector<double> values;
  for (const CrossRankStat& s : stats) values.push_back(s.max);
  return values;
}

// --target-mfu: one compute-only pass at scale 1 picks the compute scale that reaches it.
void calibrate_to_target_mfu(Executor& executor, const MeasureInputs& in) {
  const ReplayOptions& options = in.options;
  if (!in.peak_tflops) throw UsageError("--target-mfu needs --peak-tflops");
  executor.set_compute_scale(1);
  const double at_one_ms =
      median(undilated(executor.run_pass(PassKind::compute_only), in.dilation).agreed_step_ms);
  executor.set_compute_scale(scale_for_target_mfu(in.model_flops_per_step, at_one_ms,
                                                  *in.peak_tflops, options.target_mfu));
  char line[160];
  std::snprintf(line, sizeof line,
                "--target-mfu %.3f: compute-only step %.3f ms at scale 1 -> "
                "--compute-scale %.4f",
                options.target_mfu, at_one_ms, executor.compute_scale());
  say(in.rank, line);
}

// Per op, the bytes busbw counts (OpSpec::bus_bytes) on this rank's layout, which for an
// all_to_allv holds only this rank's counts: the largest over ranks is the busiest rank's, the
// rule the perf programs follow. Ranks whose op lists differ (per-rank traces, a pipeline's
// stages) keep their own.
std::vector<double> bus_bytes_over_ranks(const Executor& executor, double timeout_s) {
  const Schedule& s = executor.schedule();
  std::vector<double> bytes(s.ops.size(), 0);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const PreparedCollective* call = executor.prepared(static_cast<int>(i));
    if (!call) continue;
    OpLayout layout = call->layout;
    layout.rank = executor.groups().get(call->key).rank();
    bytes[i] = call->spec->bus_bytes(s.ops[i].collective().bytes, layout, call->dtype);
  }
  if (!same_size_on_every_rank(MPI_COMM_WORLD, bytes.size(), timeout_s) ||
      pipeline_place(s).stages > 1)
    return bytes;
  return slowest(gather_stats_to_root(MPI_COMM_WORLD, bytes, timeout_s));
}

std::uint64_t largest_over_ranks(std::uint64_t bytes, double timeout_s) {
  return static_cast<std::uint64_t>(
      max_across_ranks(MPI_COMM_WORLD, static_cast<double>(bytes), timeout_s));
}

}  // namespace

PassResult undilated(PassResult result, double dilation) {
  for (std::vector<double>* times : {&result.step_ms, &result.agreed_step_ms, &result.op_ms,
                                     &result.op_start_ms, &result.op_end_ms})
    for (double& t : *times) t /= dilation;
  return result;
}

int expected_pass_steps(const ReplayOptions& options) {
  return options.steps > 0 ? options.steps : std::max(5, options.max_steps / 2);
}

Measured measure_replay(Executor& executor, const Progress& progress, const MeasureInputs& in) {
  const ReplayOptions& options = in.options;
  const double timeout_s = options.timeout_s;
  if (options.check) {
    const CheckSummary check = check_replayed_collectives(executor, 1);
    say(in.rank, "-c: " + std::to_string(check.collectives_checked) +
                     " distinct collectives verified exactly (" +
                     std::to_string(check.elements_checked) + " elements on rank 0)");
  }
  executor.warm_up();
  progress.advance(options.warmup, "warm-up (" + std::to_string(options.warmup) + " steps)");
  if (options.target_mfu > 0) calibrate_to_target_mfu(executor, in);

  Measured out;
  ReplayMeasurements& m = out.m;
  const int pass_steps = expected_pass_steps(options);
  int passes_done = 0;
  for (PassKind pass : {PassKind::compute_only, PassKind::comm_only, PassKind::overlapped}) {
    const PassResult result = undilated(executor.run_pass(pass), in.dilation);
    if (pass == PassKind::overlapped) out.overlapped = result;
    m.passes[static_cast<std::size_t>(pass)] =
        summarize(result, timeout_s, pipeline_place(executor.schedule()).stages > 1);
    ++passes_done;
    progress.advance(
        options.warmup + passes_done * pass_steps,
        "pass " + std::to_string(passes_done) + "/3 (" + std::string(pass_name(pass)) + ")");
  }
  if (options.graph_launches > 0) {
    m.comm_only_graph_ms =
        time_comm_only_graph(executor, options.graph_launches, in.slowest_rank) / in.dilation;
    m.graph_launches = options.graph_launches;
  }
  m.compute_scale = executor.compute_scale();
  m.collective_buffer_bytes = largest_over_ranks(executor.collective_buffer_bytes(), timeout_s);
  m.compute_buffer_bytes = largest_over_ranks(executor.compute_buffer_bytes(), timeout_s);
  m.bus_bytes = bus_bytes_over_ranks(executor, timeout_s);
  return out;
}

std::vector<nlohmann::json> report_replay(ReplayMeasurements& m, const ReportInputs& in,
                                          MonitorSession* monitor, const nlohmann::json& run) {
  const Schedule& schedule = *m.schedule;
  m.op_times = {slowest(pass_of(m, PassKind::compute_only).op_ms),
                slowest(pass_of(m, PassKind::comm_only).op_ms),
                slowest(pass_of(m, PassKind::overlapped).op_ms)};
  const PassStepTimes steps{pass_of(m, PassKind::compute_only).step_ms,
                            pass_of(m, PassKind::comm_only).step_ms,
                            pass_of(m, PassKind::overlapped).step_ms};
  m.world = in.meta.ranks;
  m.step = step_headroom(schedule, steps, m.op_times,
                         {schedule.tokens_per_step, m.world, in.flops.hardware.value_or(0),
                          in.flops.model.value_or(0), in.peak.tflops});
  m.op_headroom = op_headroom(schedule, m.op_times);
  m.units = unit_headroom(schedule, m.op_times);
  m.sanity_problems =
      step_sanity(m.step, kSanityTolerance, pipeline_place(schedule).stages > 1);
  m.peak_tflops = in.peak.tflops;
  m.peak_source = in.peak.source;
  m.flops_per_step = in.flops.hardware;
  m.model_flops_per_step = in.flops.model;
  m.hosts = in.meta.hosts;
  m.devices = in.meta.devices;
  m.group_sizes = in.group_sizes;
  m.engine = in.engine;
  m.backend = in.meta.backend;
  m.transport = in.meta.transport_verified;
  m.nodes = in.meta.nodes;
  if (in.built_from) {
    const OptimizerChoice optimizer = request_optimizer(*in.built_from);
    m.optimizer_asked = in.built_from->optimizer;
    m.optimizer = std::string(optimizer_name(optimizer.kind));
    m.optimizer_why = optimizer.why;
    m.host_time_source = host_time_setting(in.built_from->host_time).source;
  }

  print_replay_table(m, stdout);
  if (monitor) {
    MetricsBoard& board = monitor->board();
    board.set("collreplay_step_ms", "Overlapped step time of the replay (slowest rank).", {},
              m.step.overlapped_ms);
    board.set("collreplay_exposed_comm_ms", "Communication the step could not hide.", {},
              m.step.exposed_comm_ms);
    for (const UnitHeadroom& u : m.units)
      board.set("collreplay_headroom_ms", "Compute left to hide the unit's communication.",
                {{"unit", u.unit}}, u.headroom_ms);
  }
  return replay_records(m, run);
}

}  // namespace collreplay
