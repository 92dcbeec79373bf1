#include "bench/replay_run.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/compute_blas.hpp"
#include "bench/compute_cublas.hpp"
#include "bench/cross_rank.hpp"
#include "bench/executor.hpp"
#include "bench/gemm_probe.hpp"
#include "bench/guarded_main.hpp"
#include "bench/preflight.hpp"
#include "bench/replay_check.hpp"
#include "bench/replay_cli.hpp"
#include "bench/replay_report.hpp"
#include "bench/results.hpp"
#include "bench/run_metadata.hpp"
#include "collectives/backend.hpp"
#include "common/errors.hpp"
#include "workloads/schedule_builder.hpp"
#include "workloads/schedule_json.hpp"

namespace collreplay {
namespace {

constexpr double kGpuPeakTflops = 989;  // H100 / H200 SXM, bf16 dense

struct RankPlacement {
  int node_color = 0;  // lowest world rank on this rank's host
  int local_rank = 0;  // index among the ranks of this host
  int ranks_per_node = 1;
};

RankPlacement place(const std::vector<RankIdentity>& ranks, int rank) {
  RankPlacement p;
  std::vector<int> ranks_on_host(ranks.size(), 0);  // indexed by the host's first rank
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
    int first = 0;
    while (ranks[first].host != ranks[r].host) ++first;
    p.ranks_per_node = std::max(p.ranks_per_node, ++ranks_on_host[first]);
    if (r == rank) {
      p.node_color = first;
      p.local_rank = ranks_on_host[first] - 1;
    }
  }
  return p;
}

Schedule schedule_for_rank(const ReplayOptions& options, WorkloadRequest request, int world,
                           int rank, int ranks_per_node) {
  if (!options.schedule_file.empty()) return load_schedule_file(options.schedule_file);
  request.world = world;
  request.rank = rank;
  // Measured unless given: --gpus-per-node N lays out emulated nodes on fewer hosts.
  if (!options.gpus_per_node_given) request.gpus_per_node = ranks_per_node;
  return build_schedule(request);
}

bool transport_matches(const std::string& asked, const std::string& verified) {
  if (asked == "any" || asked == verified) return true;
  return verified.starts_with(asked + ":") || asked == "mpi";  // "ucx" matches "ucx:tcp"
}

struct Peak {
  std::optional<double> tflops;
  std::string source;
};

// Given, the GPU default, or (host) the fastest rank's measured sgemm: MFU needs a peak.
Peak choose_peak(const ReplayOptions& options, ComputeEngine& engine) {
  if (options.peak_tflops) return {options.peak_tflops, "--peak-tflops"};
  if (engine.enqueues_on_device()) return {kGpuPeakTflops, "H100/H200 bf16 dense default"};
  const GemmProbe probe = probe_gemm(engine, 1024, 3);
  return {max_across_ranks(MPI_COMM_WORLD, probe.tflops), "measured sgemm 1024^3, fastest rank"};
}

PassSummary summarize(const PassResult& result) {
  PassSummary s;
  s.pass = result.pass;
  s.step_ms = median(result.agreed_step_ms);
  s.steps = static_cast<int>(result.step_ms.size());
  s.spread = result.spread;
  s.stable = result.stable;
  const double my_step_ms = median(result.step_ms);
  const auto step_stats = gather_stats_to_root(MPI_COMM_WORLD, std::span(&my_step_ms, 1));
  if (!step_stats.empty()) s.rank_step_ms = step_stats[0];
  s.op_ms = gather_stats_to_root(MPI_COMM_WORLD, result.op_ms);
  return s;
}

std::vector<double> slowest(const std::vector<CrossRankStat>& stats) {
  std::vector<double> values;
  for (const CrossRankStat& s : stats) values.push_back(s.max);
  return values;
}

void say(int rank, const std::string& line) {
  if (rank == 0) std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

int run_replay(const ReplayOptions& options, const WorkloadRequest& request) {
  // Everything that can be judged without MPI fails here, alike on every rank.
  validate_replay_options(options);
  // NCCL reads these when a communicator starts: set before any does, on every rank alike.
  if (!options.nccl_algo.empty()) setenv("NCCL_ALGO", options.nccl_algo.c_str(), 1);
  if (!options.nccl_proto.empty()) setenv("NCCL_PROTO", options.nccl_proto.c_str(), 1);
  if (request.layers == 0)
    throw UsageError("--layers 0 replays nothing: give N >= 1 (or leave it out for every layer)");
  const BackendKind backend =
      options.backend.empty() ? default_backend() : parse_backend(options.backend);
  require_backend_available(backend);
  ResultsFile results(options.out, launcher_rank() == 0);

  MpiSession mpi(nullptr, nullptr);
  int world = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const RankPlacement placement = place(all_gather_identities(MPI_COMM_WORLD, ""), rank);
  const Schedule schedule =
      schedule_for_rank(options, request, world, rank, placement.ranks_per_node);
  if (schedule.world != world)
    throw UsageError("the schedule is for " + std::to_string(schedule.world) +
                     " ranks, but this run has " + std::to_string(world));

  const std::unique_ptr<Communicator> comm =
      make_communicator(backend, MPI_COMM_WORLD, BackendOptions{options.timeout_s, false});
  comm->barrier();  // a first collective, so that transport() reports what is really used
  const RunMetadata meta =
      collect_run_metadata(*comm, MPI_COMM_WORLD, options.command_line, options.transport);
  const int mismatch = transport_matches(options.transport, meta.transport_verified) ? 0 : 1;
  if (max_across_ranks(MPI_COMM_WORLD, mismatch) > 0)
    throw TransportMismatchError("--transport " + options.transport + " was asked for, but " +
                                 meta.backend + " uses " + meta.transport_verified);

  const std::unique_ptr<ComputeEngine> engine =
      comm->device_buffers() ? make_cublas_engine(placement.local_rank)
                             : make_blas_engine(options.compute_threads);
  if (options.preflight)
    run_preflight(MPI_COMM_WORLD, *engine, comm->device_description(),
                  {options.slow_threshold, options.strict});
  const Peak peak = choose_peak(options, *engine);

  const GroupComms groups(*comm, schedule, placement.node_color);
  ExecutorOptions executor_options;
  executor_options.steps = options.steps;
  executor_options.max_steps = options.max_steps;
  executor_options.stable_spread = options.stable_fraction();
  executor_options.warmup_steps = options.warmup;
  executor_options.compute_scale = options.compute_scale;
  executor_options.timeout_s = options.timeout_s;
  Executor executor(schedule, groups, *engine, executor_options,
                    [](double value) { return max_across_ranks(MPI_COMM_WORLD, value); });

  if (options.check) {
    const CheckSummary check = check_replayed_collectives(executor, 1);
    say(rank, "-c: " + std::to_string(check.collectives_checked) +
                  " distinct collectives verified exactly (" +
                  std::to_string(check.elements_checked) + " elements on rank 0)");
  }
  executor.warm_up();

  const double flops = schedule_flops(schedule);
  if (options.target_mfu > 0) {
    if (!peak.tflops) throw UsageError("--target-mfu needs --peak-tflops");
    executor.set_compute_scale(1);
    const double at_one_ms = median(executor.run_pass(PassKind::compute_only).agreed_step_ms);
    executor.set_compute_scale(
        scale_for_target_mfu(flops, at_one_ms, *peak.tflops, options.target_mfu));
    char line[160];
    std::snprintf(line, sizeof line, "--target-mfu %.3f: compute-only step %.3f ms at scale 1 -> "
                  "--compute-scale %.4f", options.target_mfu, at_one_ms, executor.compute_scale());
    say(rank, line);
  }

  ReplayMeasurements m;
  m.schedule = &schedule;
  for (PassKind pass : {PassKind::compute_only, PassKind::comm_only, PassKind::overlapped})
    m.passes[static_cast<std::size_t>(pass)] = summarize(executor.run_pass(pass));
  const std::uint64_t collective_bytes = static_cast<std::uint64_t>(
      max_across_ranks(MPI_COMM_WORLD, static_cast<double>(executor.collective_buffer_bytes())));
  const std::uint64_t compute_bytes = static_cast<std::uint64_t>(
      max_across_ranks(MPI_COMM_WORLD, static_cast<double>(executor.compute_buffer_bytes())));
  if (rank != 0) return kExitOk;

  m.op_times = {slowest(pass_of(m, PassKind::compute_only).op_ms),
                slowest(pass_of(m, PassKind::comm_only).op_ms),
                slowest(pass_of(m, PassKind::overlapped).op_ms)};
  const PassStepTimes steps{pass_of(m, PassKind::compute_only).step_ms,
                            pass_of(m, PassKind::comm_only).step_ms,
                            pass_of(m, PassKind::overlapped).step_ms};
  m.step = step_headroom(schedule, steps, m.op_times,
                         {schedule.tokens_per_step, world, flops, peak.tflops});
  m.op_headroom = op_headroom(schedule, m.op_times);
  m.units = unit_headroom(schedule, m.op_times);
  m.sanity_problems = step_sanity(m.step, kSanityTolerance);
  m.compute_scale = executor.compute_scale();
  m.peak_tflops = peak.tflops;
  m.peak_source = peak.source;
  m.flops_per_step = flops;
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

  print_replay_table(m, stdout);
  const nlohmann::json run = meta.to_json();
  for (nlohmann::json& record : replay_records(m, run)) results.add(std::move(record));
  results.commit();
  if (results.enabled()) std::printf("# results: %s\n", results.path().c_str());
  return kExitOk;
}

}  // namespace collreplay
