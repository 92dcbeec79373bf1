#include "bench/replay/replay_run.hpp"
#include "bench/monitor/host_monitor.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/app/cross_rank.hpp"
#include "bench/app/guarded_main.hpp"
#include "bench/app/progress.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/app/setup_watchdog.hpp"
#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/compute_model.hpp"
#include "bench/compute/cpu/host_threads.hpp"
#include "bench/executor/executor.hpp"
#include "bench/flags/run_flags.hpp"
#include "bench/preflight/preflight.hpp"
#include "bench/replay/cli/replay_cli.hpp"
#include "bench/replay/footprint.hpp"
#include "bench/replay/graph_step.hpp"
#include "bench/replay/rank_placement.hpp"
#include "bench/replay/replay_check.hpp"
#include "bench/replay/replay_report.hpp"
#include "bench/replay/flops/peak.hpp"
#include "bench/replay/flops/rank_flops.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "bench/replay/trace_out/trace_out.hpp"
#include "collectives/backend.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/trace/trace_import.hpp"
#include "workloads/schedule_file.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

constexpr double kBackstopExtraS = 5;

ScheduleWithFlops schedule_for_rank(const ReplayOptions& options, WorkloadRequest request,
                                    int world, int rank, int ranks_per_node) {
  if (!options.schedule_file.empty())
    return with_flops(load_schedule_for_rank(options.schedule_file, rank));
  request.world = world;
  request.rank = rank;
  // Measured unless given: --gpus-per-node N lays out emulated nodes on fewer hosts.
  if (!options.gpus_per_node_given) request.gpus_per_node = ranks_per_node;
  return schedule_with_flops(request);
}

// With dilation D everything emulated ran D times slower: report undilated times.
PassResult undilated(PassResult result, double dilation) {
  for (std::vector<double>* times : {&result.step_ms, &result.agreed_step_ms, &result.op_ms,
                                     &result.op_start_ms, &result.op_end_ms})
    for (double& t : *times) t /= dilation;
  return result;
}

std::unique_ptr<ComputeEngine> make_engine(const ReplayOptions& options, const RunSetup& setup,
                                           const Communicator& comm, int local_rank) {
  if (setup.compute_model) return make_model_engine(*setup.compute_model, setup.dilation);
  return comm.device_buffers()
             ? make_cublas_engine(gpu_for_local_rank(local_rank, visible_gpu_count()))
             : make_blas_engine(options.compute_threads);
}

PassSummary summarize(const PassResult& result, double timeout_s) {
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
  if (!same_size_on_every_rank(MPI_COMM_WORLD, result.op_ms.size(), timeout_s)) {
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

// The first progress line: what is about to run.
std::string describe_run(const Schedule& s, int world, int pass_steps, const std::string& engine) {
  char text[320];
  std::snprintf(text, sizeof text,
                "%s %s on %d rank(s), %zu ops per step (%.3g TFLOP of GEMMs per rank) on %s; "
                "warm-up, then 3 passes of ~%d steps",
                s.model.c_str(), s.plan.c_str(), world, s.ops.size(),
                schedule_totals(s).flops / 1e12, engine.c_str(), pass_steps);
  return text;
}

void say(int rank, const std::string& line) {
  if (rank == 0) std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

int run_replay(const ReplayOptions& options, const WorkloadRequest& asked) {
  // Everything that can be judged without MPI fails here, alike on every rank.
  validate_replay_options(options);
  // NCCL reads these when a communicator starts: set before any does, on every rank alike.
  if (!options.nccl_algo.empty()) setenv("NCCL_ALGO", options.nccl_algo.c_str(), 1);
  if (!options.nccl_proto.empty()) setenv("NCCL_PROTO", options.nccl_proto.c_str(), 1);
  if (asked.layers == 0)
    throw UsageError("--layers 0 replays nothing: give N >= 1 (or leave it out for every layer)");
  const BackendKind backend =
      options.backend.empty() ? default_backend() : parse_backend(options.backend);
  require_backend_available(backend);
  if (options.graph_launches > 0 && backend != BackendKind::nccl)
    throw UsageError("-G needs the nccl backend (CUDA graphs)");
  const RunSetup setup = prepare_run(options.run, backend);
  // The same request, with the parameters where this replay keeps them (auto's optimizer).
  WorkloadRequest request = asked;
  request.param_device = replay_param_device(backend == BackendKind::mpi, options.run);
  const bool built = options.schedule_file.empty() && request.trace.empty();

  MpiSession mpi(nullptr, nullptr);
  int world = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double timeout_s = options.timeout_s;
  // Rank 0 writes --out; every rank learns whether it can, so all stop alike if not.
  std::unique_ptr<ResultsFile> results_file;
  std::string out_problem;
  try {
    results_file = std::make_unique<ResultsFile>(options.out, rank == 0);
  } catch (const UsageError& e) {
    out_problem = e.what();
  }
  throw_if_any_rank_has(MPI_COMM_WORLD, out_problem, timeout_s);
  ResultsFile& results = *results_file;
  TraceOut trace_out(options.trace_out, MPI_COMM_WORLD, timeout_s);
  const RankPlacement placement = place(all_gather_identities(MPI_COMM_WORLD, "", timeout_s), rank);
  const RankPlacement nodes = emulated_placement(setup, world, rank, placement);
  // Every rank loads or builds its own schedule; a problem on any rank stops every rank alike.
  ScheduleWithFlops planned;
  Schedule& schedule = planned.schedule;
  const StepFlops& step_flops = planned.flops;
  std::string schedule_problem;
  try {
    planned = schedule_for_rank(options, request, world, rank, nodes.ranks_per_node);
    if (schedule.world != world)
      throw UsageError("the schedule is for " + std::to_string(schedule.world) +
                       " ranks, but this run has " + std::to_string(world));
    if (options.graph_launches > 0) require_one_collective_group(schedule);
  } catch (const UsageError& e) {
    schedule_problem = e.what();
  }
  throw_if_any_rank_has(MPI_COMM_WORLD, schedule_problem, timeout_s);
  // Ranks' FLOPs differ where their work does (a pipeline's stages): per GPU is the job's mean.
  planned.flops = mean_step_flops(all_ranks_flops(MPI_COMM_WORLD, planned.flops, timeout_s));

  // Setup blocks inside MPI and NCCL (bootstrap, splits) where no timeout reaches: a rank that
  // never arrives must end the job, not hang it. The backstop fires a little after the
  // library-level timeouts (NCCL init, cross-rank gathers), so theirs name the step when they can.
  const double backstop_s = timeout_s > 0 ? timeout_s + kBackstopExtraS : 0;
  SetupWatchdog setup_watchdog(
      backstop_s,
      std::string("communicator setup (") + (backend == BackendKind::nccl ? "NCCL" : "MPI") + ")");
  BackendOptions backend_options;
  backend_options.timeout_seconds = options.timeout_s;
  setup.fill(backend_options);
  const std::unique_ptr<Communicator> comm =
      make_communicator(backend, MPI_COMM_WORLD, backend_options);
  comm->barrier();  // a first collective, so that transport() reports what is really used
  setup_watchdog.step("collecting run metadata");
  RunMetadata meta =
      collect_run_metadata(*comm, MPI_COMM_WORLD, options.command_line, setup.transport.name());
  setup_watchdog.disarm();
  describe_run(meta, setup);
  const int mismatch = transport_matches(meta.transport_asked, meta.transport_verified) ? 0 : 1;
  if (max_across_ranks(MPI_COMM_WORLD, mismatch, timeout_s) > 0)
    throw TransportMismatchError("--transport " + meta.transport_asked + " was asked for, but " +
                                 meta.backend + " uses " + meta.transport_verified);
  for (const std::string& note : run_notes(meta)) say(rank, note);
  if (meta.emulated || meta.fabric != "real" || meta.dilation != 1) {
    char line[200];
    std::snprintf(
        line, sizeof line, "fabric %s%s on %d node(s), dilation %g (times shown undilated)",
        meta.fabric.c_str(), meta.emulated ? " (emulated)" : "", meta.nodes, meta.dilation);
    say(rank, line);
  }

  const std::unique_ptr<ComputeEngine> engine =
      make_engine(options, setup, *comm, placement.local_rank);
  if (!comm->device_buffers() && !setup.compute_model && rank == 0)
    if (const std::string warning = oversubscription_warning(
            placement.ranks_per_node, options.compute_threads, usable_cores());
        !warning.empty())
      std::fprintf(stderr, "replay: %s\n", warning.c_str());
  // Ranks sharing a GPU (two emulated nodes on one device) ask the device they run on.
  check_memory(schedule, comm->device_buffers(), options.check,
               gpu_for_local_rank(placement.local_rank, visible_gpu_count()),
               placement.ranks_per_node, timeout_s);
  if (options.preflight)
    run_preflight(MPI_COMM_WORLD, *engine, comm->device_description(),
                  {options.slow_threshold, options.strict});
  const Peak peak = choose_peak(options.peak_tflops, setup, *engine, timeout_s);
  const double flops = schedule_totals(schedule).flops;
  // Steps to come: warm-up, then three passes of --steps (until stable: between 5 and
  // --max-steps; half the cap is the guess). The estimate is the GEMMs' time at the peak, a
  // floor: exposed communication comes on top.
  const int pass_steps = options.steps > 0 ? options.steps : std::max(5, options.max_steps / 2);
  const double total_steps = options.warmup + 3.0 * pass_steps;
  const Progress progress("replay", total_steps, progress_wanted(options.progress, rank));
  progress.announce(
      describe_run(schedule, world, pass_steps, engine->description()),
      peak.tflops ? flops * options.compute_scale / (*peak.tflops * 1e12) * total_steps : 0);

  SetupWatchdog groups_watchdog(backstop_s, "splitting the group communicators");
  const AgreeMax agree_across_ranks = [timeout_s](double value) {
    return max_across_ranks(MPI_COMM_WORLD, value, timeout_s);
  };
  const GroupComms groups(*comm, schedule, nodes.node_color, agree_across_ranks);
  ExecutorOptions executor_options;
  executor_options.steps = options.steps;
  executor_options.max_steps = options.max_steps;
  executor_options.stable_spread = options.stable_fraction();
  executor_options.warmup_steps = options.warmup;
  executor_options.compute_scale = options.compute_scale;
  executor_options.timeout_s = options.timeout_s;
  groups_watchdog.step("allocating the replay's buffers");
  const AgreeMax slowest_rank = [timeout_s](double value) {
    try {
      return max_across_ranks(MPI_COMM_WORLD, value, timeout_s);
    } catch (const TimeoutError& e) {
      throw TimeoutError(std::string("after a replay step, ") + e.what() +
                         ": another rank has not finished the step");
    }
  };
  Executor executor(schedule, groups, *engine, executor_options, slowest_rank);
  groups_watchdog.disarm();
  // Destroyed before the executor and the engine: see AbandonOnUnwind.
  const AbandonOnUnwind abandon(groups);
  const std::unique_ptr<MonitorSession> monitor =
      start_host_monitor(options.run.monitor, MPI_COMM_WORLD, comm->device_buffers(), timeout_s);

  if (options.check) {
    const CheckSummary check = check_replayed_collectives(executor, 1);
    say(rank, "-c: " + std::to_string(check.collectives_checked) +
                  " distinct collectives verified exactly (" +
                  std::to_string(check.elements_checked) + " elements on rank 0)");
  }
  executor.warm_up();
  progress.advance(options.warmup, "warm-up (" + std::to_string(options.warmup) + " steps)");

  const double model_flops_per_step = step_flops.model.value_or(0);
  if (options.target_mfu > 0) {
    if (!peak.tflops) throw UsageError("--target-mfu needs --peak-tflops");
    executor.set_compute_scale(1);
    const double at_one_ms =
        median(undilated(executor.run_pass(PassKind::compute_only), setup.dilation).agreed_step_ms);
    executor.set_compute_scale(
        scale_for_target_mfu(model_flops_per_step, at_one_ms, *peak.tflops, options.target_mfu));
    char line[160];
    std::snprintf(line, sizeof line,
                  "--target-mfu %.3f: compute-only step %.3f ms at scale 1 -> "
                  "--compute-scale %.4f",
                  options.target_mfu, at_one_ms, executor.compute_scale());
    say(rank, line);
  }

  ReplayMeasurements m;
  m.schedule = &schedule;
  int passes_done = 0;
  PassResult overlapped;  // this rank's, for --trace-out
  for (PassKind pass : {PassKind::compute_only, PassKind::comm_only, PassKind::overlapped}) {
    const PassResult result = undilated(executor.run_pass(pass), setup.dilation);
    if (pass == PassKind::overlapped) overlapped = result;
    m.passes[static_cast<std::size_t>(pass)] = summarize(result, timeout_s);
    ++passes_done;
    progress.advance(
        options.warmup + passes_done * pass_steps,
        "pass " + std::to_string(passes_done) + "/3 (" + std::string(pass_name(pass)) + ")");
  }
  if (options.graph_launches > 0) {
    m.comm_only_graph_ms =
        time_comm_only_graph(executor, options.graph_launches, slowest_rank) / setup.dilation;
    m.graph_launches = options.graph_launches;
  }
  const std::uint64_t collective_bytes = static_cast<std::uint64_t>(max_across_ranks(
      MPI_COMM_WORLD, static_cast<double>(executor.collective_buffer_bytes()), timeout_s));
  const std::uint64_t compute_bytes = static_cast<std::uint64_t>(max_across_ranks(
      MPI_COMM_WORLD, static_cast<double>(executor.compute_buffer_bytes()), timeout_s));
  // Collective: every host's counters to rank 0, before the other ranks are done.
  std::vector<nlohmann::json> counter_records =
      finish_host_monitor(monitor.get(), MPI_COMM_WORLD, timeout_s);
  for (const std::string& path :
       trace_out.write(schedule, overlapped, {executor.compute_scale(), setup.compute_model,
                                              nodes.node_color, meta.backend,
                                              engine->description(), meta.devices}))
    say(rank, "trace: " + path + " (each rank's median step of the overlapped pass)");
  if (rank != 0) return kExitOk;

  m.op_times = {slowest(pass_of(m, PassKind::compute_only).op_ms),
                slowest(pass_of(m, PassKind::comm_only).op_ms),
                slowest(pass_of(m, PassKind::overlapped).op_ms)};
  const PassStepTimes steps{pass_of(m, PassKind::compute_only).step_ms,
                            pass_of(m, PassKind::comm_only).step_ms,
                            pass_of(m, PassKind::overlapped).step_ms};
  m.step =
      step_headroom(schedule, steps, m.op_times,
                    {schedule.tokens_per_step, world, step_flops.hardware.value_or(0),
                     model_flops_per_step, peak.tflops});
  m.op_headroom = op_headroom(schedule, m.op_times);
  m.units = unit_headroom(schedule, m.op_times);
  m.sanity_problems = step_sanity(m.step, kSanityTolerance);
  m.compute_scale = executor.compute_scale();
  m.peak_tflops = peak.tflops;
  m.peak_source = peak.source;
  m.flops_per_step = step_flops.hardware;
  m.model_flops_per_step = step_flops.model;
  m.collective_buffer_bytes = collective_bytes;
  m.compute_buffer_bytes = compute_bytes;
  m.hosts = meta.hosts;
  m.devices = meta.devices;
  for (GroupKind g : kAllGroupKinds)
    m.group_sizes.push_back(groups.has(g) ? groups.get(g).size() : 1);
  m.engine = engine->description();
  m.backend = meta.backend;
  m.transport = meta.transport_verified;
  m.world = world;
  m.nodes = meta.nodes;
  if (built) {
    const OptimizerChoice optimizer = request_optimizer(request);
    m.optimizer_asked = request.optimizer;
    m.optimizer = std::string(optimizer_name(optimizer.kind));
    m.optimizer_why = optimizer.why;
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
  meta.nccl_algo = comm->algorithms();  // what the replayed sizes used, seen by now
  const nlohmann::json run = meta.to_json();
  for (nlohmann::json& record : replay_records(m, run)) results.add(std::move(record));
  for (nlohmann::json& record : counter_records) {
    record["run"] = run;
    results.add(std::move(record));
  }
  results.commit();
  if (results.enabled()) std::printf("# results: %s\n", results.path().c_str());
  return kExitOk;
}

}  // namespace collreplay
