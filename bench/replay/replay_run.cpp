#include "bench/replay/replay_run.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/compute/compute_blas.hpp"
#include "bench/compute/compute_model.hpp"
#include "bench/compute/compute_cublas.hpp"
#include "bench/app/cross_rank.hpp"
#include "bench/executor/executor.hpp"
#include "bench/compute/gemm_probe.hpp"
#include "bench/app/guarded_main.hpp"
#include "bench/preflight/preflight.hpp"
#include "bench/replay/replay_check.hpp"
#include "bench/replay/replay_cli.hpp"
#include "bench/replay/replay_report.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run_flags.hpp"
#include "bench/app/run_metadata.hpp"
#include "collectives/backend.hpp"
#include "collectives/transport/emulated_nodes.hpp"
#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"
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
  request.gpus_per_node = ranks_per_node;
  return build_schedule(request);
}

struct Peak {
  std::optional<double> tflops;
  std::string source;
};

// Given, the modeled GPU's, the GPU default, or (host) the fastest rank's measured sgemm: MFU
// needs a peak.
Peak choose_peak(const ReplayOptions& options, const RunSetup& setup, ComputeEngine& engine) {
  if (options.peak_tflops) return {options.peak_tflops, "--peak-tflops"};
  if (setup.compute_model)
    return {setup.compute_model->gpu.bf16_dense_tflops,
            "modeled " + std::string(setup.compute_model->gpu.name) + " bf16 dense"};
  if (engine.enqueues_on_device()) return {kGpuPeakTflops, "H100/H200 bf16 dense default"};
  const GemmProbe probe = probe_gemm(engine, 1024, 3);
  return {max_across_ranks(MPI_COMM_WORLD, probe.tflops), "measured sgemm 1024^3, fastest rank"};
}

// With dilation D everything emulated ran D times slower: report undilated times.
PassResult undilated(PassResult result, double dilation) {
  for (std::vector<double>* times : {&result.step_ms, &result.agreed_step_ms, &result.op_ms})
    for (double& t : *times) t /= dilation;
  return result;
}

// Emulated nodes (--emulate-nodes) stand in for hosts: they decide the node group and the ranks
// per node of the schedule; the real placement still picks the GPU.
RankPlacement emulated_placement(const RunSetup& setup, int world, int rank, RankPlacement real) {
  if (setup.emulate_nodes == 0) return real;
  const EmulatedNode node = emulated_node_of(rank, world, setup.emulate_nodes);
  RankPlacement p;
  p.node_color = node.node * node.ranks_per_node;
  p.local_rank = rank % node.ranks_per_node;
  p.ranks_per_node = node.ranks_per_node;
  return p;
}

std::unique_ptr<ComputeEngine> make_engine(const ReplayOptions& options, const RunSetup& setup,
                                           const Communicator& comm, int local_rank) {
  if (setup.compute_model) return make_model_engine(*setup.compute_model, setup.dilation);
  return comm.device_buffers() ? make_cublas_engine(local_rank)
                               : make_blas_engine(options.compute_threads);
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
  if (request.layers == 0)
    throw UsageError("--layers 0 replays nothing: give N >= 1 (or leave it out for every layer)");
  const BackendKind backend =
      options.backend.empty() ? default_backend() : parse_backend(options.backend);
  require_backend_available(backend);
  const RunSetup setup = prepare_run(options.run, backend);
  ResultsFile results(options.out, launcher_rank() == 0);

  MpiSession mpi(nullptr, nullptr);
  int world = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const RankPlacement placement = place(all_gather_identities(MPI_COMM_WORLD, ""), rank);
  const RankPlacement nodes = emulated_placement(setup, world, rank, placement);
  const Schedule schedule = schedule_for_rank(options, request, world, rank, nodes.ranks_per_node);
  if (schedule.world != world)
    throw UsageError("the schedule is for " + std::to_string(schedule.world) +
                     " ranks, but this run has " + std::to_string(world));

  BackendOptions backend_options;
  backend_options.timeout_seconds = options.timeout_s;
  setup.fill(backend_options);
  const std::unique_ptr<Communicator> comm =
      make_communicator(backend, MPI_COMM_WORLD, backend_options);
  comm->barrier();  // a first collective, so that transport() reports what is really used
  RunMetadata meta = collect_run_metadata(*comm, MPI_COMM_WORLD, options.command_line,
                                          setup.transport.name());
  describe_run(meta, setup);
  const int mismatch = transport_matches(meta.transport_asked, meta.transport_verified) ? 0 : 1;
  if (max_across_ranks(MPI_COMM_WORLD, mismatch) > 0)
    throw TransportMismatchError("--transport " + meta.transport_asked + " was asked for, but " +
                                 meta.backend + " uses " + meta.transport_verified);
  for (const std::string& note : run_notes(meta)) say(rank, note);
  if (meta.emulated || meta.fabric != "real" || meta.dilation != 1) {
    char line[200];
    std::snprintf(line, sizeof line, "fabric %s%s on %d node(s), dilation %g (times shown undilated)",
                  meta.fabric.c_str(), meta.emulated ? " (emulated)" : "", meta.nodes, meta.dilation);
    say(rank, line);
  }

  const std::unique_ptr<ComputeEngine> engine =
      make_engine(options, setup, *comm, placement.local_rank);
  if (options.preflight)
    run_preflight(MPI_COMM_WORLD, *engine, comm->device_description(),
                  {options.slow_threshold, options.strict});
  const Peak peak = choose_peak(options, setup, *engine);

  const GroupComms groups(*comm, schedule, nodes.node_color);
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
    const double at_one_ms = median(
        undilated(executor.run_pass(PassKind::compute_only), setup.dilation).agreed_step_ms);
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
    m.passes[static_cast<std::size_t>(pass)] =
        summarize(undilated(executor.run_pass(pass), setup.dilation));
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
  for (GroupKind g : {GroupKind::world, GroupKind::node, GroupKind::expert, GroupKind::data_parallel})
    m.group_sizes.push_back(groups.has(g) ? groups.get(g).size() : 1);
  m.engine = engine->description();
  m.backend = meta.backend;
  m.transport = meta.transport_verified;
  m.world = world;
  m.nodes = meta.nodes;

  print_replay_table(m, stdout);
  meta.nccl_algo = comm->algorithms();  // what the replayed sizes used, seen by now
  const nlohmann::json run = meta.to_json();
  for (nlohmann::json& record : replay_records(m, run)) results.add(std::move(record));
  results.commit();
  if (results.enabled()) std::printf("# results: %s\n", results.path().c_str());
  return kExitOk;
}

}  // namespace collreplay
