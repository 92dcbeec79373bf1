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
#include "bench/app/run/line_rate.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/app/setup_watchdog.hpp"
#include "bench/compute/cpu/compute_blas.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/compute/compute_model.hpp"
#include "bench/compute/cpu/host_threads.hpp"
#include "bench/executor/executor.hpp"
#include "bench/flags/run_flags.hpp"
#include "bench/flags/run_start.hpp"
#include "bench/preflight/preflight.hpp"
#include "bench/replay/cli/replay_cli.hpp"
#include "bench/replay/footprint.hpp"
#include "bench/replay/measure/graph_step.hpp"
#include "bench/replay/rank_placement.hpp"
#include "bench/replay/measure/replay_measure.hpp"
#include "bench/replay/flops/peak.hpp"
#include "bench/replay/flops/rank_flops.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "bench/replay/trace_out/trace_out.hpp"
#include "collectives/backend.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/trace/trace_import.hpp"
#include "workloads/schedule_file.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

// What replay decides before MPI starts, alike on every rank.
struct ReplayChoice {
  BackendKind backend = BackendKind::mpi;
  RunSetup setup;
  WorkloadRequest request;  // as asked, with where the parameters live (auto's optimizer)
  bool built = false;       // built from the request (not loaded from a file or a trace)
};

// What needs the backend fails here, alike on every rank; the rest failed in
// validate_replay_options, which parsed the run flags into `parsed`.
ReplayChoice choose_before_mpi(const ReplayOptions& options, const WorkloadRequest& asked,
                               const RunSetup& parsed) {
  // NCCL reads these when a communicator starts: set before any does, on every rank alike.
  if (!options.nccl_algo.empty()) setenv("NCCL_ALGO", options.nccl_algo.c_str(), 1);
  if (!options.nccl_proto.empty()) setenv("NCCL_PROTO", options.nccl_proto.c_str(), 1);
  if (asked.layers == 0)
    throw UsageError("--layers 0 replays nothing: give N >= 1 (or leave it out for every layer)");
  ReplayChoice choice;
  choice.backend = options.backend.empty() ? default_backend() : parse_backend(options.backend);
  require_backend_available(choice.backend);
  if (options.graph_launches > 0 && choice.backend != BackendKind::nccl)
    throw UsageError("-G needs the nccl backend (CUDA graphs)");
  choice.setup = prepare_run(parsed, choice.backend);
  choice.request = asked;
  choice.request.param_device =
      replay_param_device(choice.backend == BackendKind::mpi, choice.setup);
  choice.built = options.schedule_file.empty() && asked.trace.empty();
  return choice;
}

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

// This rank in the job: where it runs, its results file and trace, and its schedule.
struct ReplayRank {
  int world = 1, rank = 0;
  std::unique_ptr<ResultsFile> results;
  std::unique_ptr<TraceOut> trace_out;
  RankPlacement placement;  // on its host
  RankPlacement nodes;      // on its node, emulated or real
  ScheduleWithFlops planned;  // flops: the job's mean per GPU
};

// Collective: a problem on any rank (--out not writable, a schedule that does not fit) stops
// every rank alike.
ReplayRank join_ranks(const ReplayOptions& options, const ReplayChoice& choice) {
  ReplayRank r;
  MPI_Comm_size(MPI_COMM_WORLD, &r.world);
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  const double timeout_s = options.timeout_s;
  // Rank 0 writes --out; every rank learns whether it can, so all stop alike if not.
  std::string out_problem;
  try {
    r.results = std::make_unique<ResultsFile>(options.out, r.rank == 0);
  } catch (const UsageError& e) {
    out_problem = e.what();
  }
  throw_if_any_rank_has(MPI_COMM_WORLD, out_problem, timeout_s);
  r.trace_out = std::make_unique<TraceOut>(options.trace_out, MPI_COMM_WORLD, timeout_s);
  r.placement = place(all_gather_identities(MPI_COMM_WORLD, "", timeout_s), r.rank);
  r.nodes = emulated_placement(choice.setup, r.world, r.rank, r.placement);
  // Every rank loads or builds its own schedule.
  std::string schedule_problem;
  try {
    r.planned =
        schedule_for_rank(options, choice.request, r.world, r.rank, r.nodes.ranks_per_node);
    if (r.planned.schedule.world != r.world)
      throw UsageError("the schedule is for " + std::to_string(r.planned.schedule.world) +
                       " ranks, but this run has " + std::to_string(r.world));
    if (options.graph_launches > 0) require_one_collective_group(r.planned.schedule);
  } catch (const UsageError& e) {
    schedule_problem = e.what();
  }
  throw_if_any_rank_has(MPI_COMM_WORLD, schedule_problem, timeout_s);
  // Ranks' FLOPs differ where their work does (a pipeline's stages): per GPU is the job's mean.
  r.planned.flops = mean_step_flops(all_ranks_flops(MPI_COMM_WORLD, r.planned.flops, timeout_s));
  return r;
}

void say(int rank, const std::string& line) {
  if (rank == 0) std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

// The header lines a reader must not miss: the transport's notes, an emulated fabric.
void say_setup(int rank, const RunMetadata& meta) {
  for (const std::string& note : run_notes(meta)) say(rank, note);
  if (meta.emulated || meta.fabric != "real" || meta.dilation != 1) {
    char line[200];
    std::snprintf(
        line, sizeof line, "fabric %s%s on %d node(s), dilation %g (times shown undilated)",
        meta.fabric.c_str(), meta.emulated ? " (emulated)" : "", meta.nodes, meta.dilation);
    say(rank, line);
  }
}

std::unique_ptr<ComputeEngine> make_engine(const ReplayOptions& options, const RunSetup& setup,
                                           const Communicator& comm, int local_rank) {
  if (setup.compute_model) return make_model_engine(*setup.compute_model, setup.dilation);
  return comm.device_buffers()
             ? make_cublas_engine(gpu_for_local_rank(local_rank, visible_gpu_count()),
                                  grouped_gemm_path(options.grouped_gemm))
             : make_blas_engine(options.compute_threads);
}

// The compute engine, the checks of what the schedule asks of this host (cores, memory,
// --preflight), and the peak MFU divides by.
struct ReplayCompute {
  std::unique_ptr<ComputeEngine> engine;
  Peak peak;
};

ReplayCompute start_compute(const ReplayOptions& options, const RunSetup& setup,
                            const ReplayRank& r, const Communicator& comm) {
  ReplayCompute c;
  c.engine = make_engine(options, setup, comm, r.placement.local_rank);
  if (!comm.device_buffers() && !setup.compute_model && r.rank == 0)
    if (const std::string warning = oversubscription_warning(
            r.placement.ranks_per_node, options.compute_threads, usable_cores());
        !warning.empty())
      std::fprintf(stderr, "replay: %s\n", warning.c_str());
  // Ranks sharing a GPU (two emulated nodes on one device) ask the device they run on.
  check_memory(r.planned.schedule, comm.device_buffers(), options.check,
               gpu_for_local_rank(r.placement.local_rank, visible_gpu_count()),
               r.placement.ranks_per_node, options.timeout_s);
  if (options.preflight)
    run_preflight(MPI_COMM_WORLD, *c.engine, comm.device_description(),
                  {options.slow_threshold, options.strict});
  c.peak = choose_peak(options.peak_tflops, setup, *c.engine, options.timeout_s);
  return c;
}

// The first progress line: what is about to run.
std::string what_runs(const Schedule& s, int world, int pass_steps, const std::string& engine) {
  char text[320];
  std::snprintf(text, sizeof text,
                "%s %s on %d rank(s), %zu ops per step (%.3g TFLOP of GEMMs per rank) on %s; "
                "warm-up, then 3 passes of ~%d steps",
                s.model.c_str(), s.plan.c_str(), world, s.ops.size(),
                schedule_totals(s).flops / 1e12, engine.c_str(), pass_steps);
  return text;
}

// The slowest rank's value across ranks, for the executor's steps: a rank that does not finish a
// step is named as such.
AgreeMax slowest_rank_agreement(double timeout_s) {
  return [timeout_s](double value) {
    try {
      return max_across_ranks(MPI_COMM_WORLD, value, timeout_s);
    } catch (const TimeoutError& e) {
      throw TimeoutError(std::string("after a replay step, ") + e.what() +
                         ": another rank has not finished the step");
    }
  };
}

// The group communicators and the executor over them. Splits and buffer allocation block inside
// the libraries, so a watchdog guards them as it guards the world communicator's setup.
struct ReplayExecution {
  std::unique_ptr<GroupComms> groups;
  std::unique_ptr<Executor> executor;
};

ReplayExecution start_execution(const ReplayOptions& options, const ReplayRank& r,
                                Communicator& comm, ComputeEngine& engine) {
  const double timeout_s = options.timeout_s;
  SetupWatchdog watchdog(setup_backstop_s(timeout_s), "splitting the group communicators");
  const AgreeMax agree_across_ranks = [timeout_s](double value) {
    return max_across_ranks(MPI_COMM_WORLD, value, timeout_s);
  };
  ReplayExecution x;
  x.groups = std::make_unique<GroupComms>(comm, r.planned.schedule, r.nodes.node_color,
                                          agree_across_ranks);
  ExecutorOptions executor_options;
  executor_options.steps = options.steps;
  executor_options.max_steps = options.max_steps;
  executor_options.stable_spread = options.stable_fraction();
  executor_options.warmup_steps = options.warmup;
  executor_options.compute_scale = options.compute_scale;
  executor_options.timeout_s = options.timeout_s;
  watchdog.step("allocating the replay's buffers");
  x.executor = std::make_unique<Executor>(r.planned.schedule, *x.groups, engine, executor_options,
                                          slowest_rank_agreement(timeout_s));
  watchdog.disarm();
  return x;
}

std::vector<int> group_sizes(const GroupComms& groups) {
  std::vector<int> sizes;
  for (GroupKind g : kAllGroupKinds) sizes.push_back(groups.has(g) ? groups.get(g).size() : 1);
  return sizes;
}

}  // namespace

int run_replay(const ReplayOptions& options, const WorkloadRequest& asked,
               const RunSetup& parsed) {
  // Start: what can be judged before MPI, then each rank's place and schedule, the communicator
  // (watched, transport verified), the compute engine and the executor.
  const ReplayChoice choice = choose_before_mpi(options, asked, parsed);
  const RunSetup& setup = choice.setup;
  MpiSession mpi(nullptr, nullptr);
  ReplayRank r = join_ranks(options, choice);
  const Schedule& schedule = r.planned.schedule;
  StartedRun started =
      start_run(choice.backend, setup, {}, options.command_line, options.timeout_s);
  Communicator& comm = *started.comm;
  RunMetadata& meta = started.meta;
  say_setup(r.rank, meta);
  const ReplayCompute compute = start_compute(options, setup, r, comm);
  // Steps to come: warm-up, then three passes. The estimate is the GEMMs' time at the peak, a
  // floor: exposed communication comes on top.
  const int pass_steps = expected_pass_steps(options);
  const double total_steps = options.warmup + 3.0 * pass_steps;
  const Progress progress("replay", total_steps, progress_wanted(options.progress, r.rank));
  progress.announce(what_runs(schedule, r.world, pass_steps, compute.engine->description()),
                    compute.peak.tflops ? schedule_totals(schedule).flops *
                                              options.compute_scale /
                                              (*compute.peak.tflops * 1e12) * total_steps
                                        : 0);
  const ReplayExecution x = start_execution(options, r, comm, *compute.engine);
  // Destroyed before the executor and the engine: see AbandonOnUnwind.
  const AbandonOnUnwind abandon(*x.groups);
  const std::unique_ptr<MonitorSession> monitor =
      start_host_monitor(options.run.monitor, MPI_COMM_WORLD, comm.device_buffers(),
                         options.timeout_s);

  // Measure: the passes, gathered across ranks; then what every rank writes or sends.
  Measured measured = measure_replay(
      *x.executor, progress,
      {options, setup.dilation, compute.peak.tflops, r.planned.flops.model.value_or(0),
       slowest_rank_agreement(options.timeout_s), r.rank});
  measured.m.schedule = &schedule;
  measured.m.node_links =
      emulated_node_links(setup.fabric, setup.emulated, meta.hosts, setup.emulate_nodes);
  // Collective: every host's counters to rank 0, before the other ranks are done.
  std::vector<nlohmann::json> counter_records =
      finish_host_monitor(monitor.get(), MPI_COMM_WORLD, options.timeout_s);
  for (const std::string& path : r.trace_out->write(
           schedule, measured.overlapped,
           {x.executor->compute_scale(), setup.compute_model, r.nodes.node_color, meta.backend,
            compute.engine->description(), meta.devices}))
    say(r.rank, "trace: " + path + " (each rank's median step of the overlapped pass)");
  if (r.rank != 0) return kExitOk;

  // Report (rank 0): the table, the metrics and the records.
  meta.nccl_algo = comm.algorithms();  // what the replayed sizes used, seen by now
  const nlohmann::json run = meta.to_json();
  ResultsFile& results = *r.results;
  for (nlohmann::json& record :
       report_replay(measured.m,
                     {r.planned.flops, compute.peak, meta, compute.engine->description(),
                      group_sizes(*x.groups), choice.built ? &choice.request : nullptr},
                     monitor.get(), run))
    results.add(std::move(record));
  for (nlohmann::json& record : counter_records) {
    record["run"] = run;
    results.add(std::move(record));
  }
  results.commit();
  if (results.enabled()) std::printf("# results: %s\n", results.path().c_str());
  return kExitOk;
}

}  // namespace collreplay
