#include "bench/perf/perf_harness.hpp"

#include <optional>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "bench/app/guarded_main.hpp"
#include "bench/app/progress.hpp"
#include "bench/app/rank_stats.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/flags/run_flags.hpp"
#include "bench/flags/run_start.hpp"
#include "bench/monitor/host_monitor.hpp"
#include "bench/perf/perf_buffers.hpp"
#include "bench/perf/cli/nccl_tests_flags.hpp"
#include "bench/perf/cli/perf_cli.hpp"
#include "bench/perf/perf_context.hpp"
#include "bench/perf/perf_line_rate.hpp"
#include "bench/perf/perf_report.hpp"
#include "bench/perf/timing/perf_samples.hpp"
#include "bench/perf/perf_setup.hpp"
#include "bench/perf/perf_table_reporter.hpp"
#include "bench/perf/timing/perf_timing.hpp"
#include "bench/perf/timing/sampling_plan.hpp"
#include "collectives/backend.hpp"
#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

// One Google Benchmark case: warm-up, then the timed ops; the case's manual time is the mean
// per-op time (as nccl-tests' time column), the same number on every rank.
void run_case(PerfContext& ctx, const OpLayout& layout, Placement p, std::uint64_t bytes,
              benchmark::State& state) {
  const std::string label = case_label(ctx.op, bytes, p, ctx.comm.size());
  prepare_buffers(ctx, layout, p);
  const WarmUp warmed = warm_up(ctx, layout, p, label);
  const std::unique_ptr<CapturedWork> graph =
      ctx.options.graph_launches > 0 ? capture_case(ctx, layout, p, label) : nullptr;
  const bool sample_each_op = ctx.comm.backend() == BackendKind::mpi ||
                              ctx.options.per_iteration_timing || ctx.options.blocking > 0;
  const PerfOptions& o = ctx.options;
  const SamplingPlan plan = o.stable_pct > 0
                                ? stable_plan(warmed.op_us, o.iterations, o.stable_pct, sample_each_op)
                                : fixed_plan(o.iterations, sample_each_op);
  SampleSummary summary;
  std::vector<double> samples_us;
  std::size_t ops_timed = 0;
  int ops_per_sample = 1;
  double cpu_us = 0;
  std::optional<FabricBytes> fabric;
  for (auto _ : state) {
    try {
      ctx.comm.barrier();
    } catch (const TimeoutError& e) {
      // A peer that stopped between two sizes: say which measurement was waiting for it.
      throw TimeoutError(label + ": " + e.what());
    }
    const bool sampled = ctx.monitor && ctx.monitor->sampling();
    const CounterSnapshot before = sampled ? ctx.monitor->fabric_now() : CounterSnapshot{};
    // Undilated: an emulated fabric shaped to bandwidth / D makes every op D times longer.
    TimedOps timed;
    try {
      timed = graph ? time_graph_launches(ctx, *graph, label)
                    : time_ops(ctx, layout, p, label, plan);
    } catch (const TimeoutError& e) {
      throw TimeoutError(label + ": " + e.what());  // the op, its size and its group, first
    }
    if (sampled) fabric = fabric_bytes_between(before, ctx.monitor->fabric_now());
    for (double& us : timed.samples_us) us /= ctx.dilation;
    summary = summarize_samples(timed.samples_us);
    samples_us = timed.samples_us;
    ops_timed = timed.ops;
    ops_per_sample = timed.ops_per_sample;
    cpu_us = timed.cpu_us;  // the host's own time: dilation slows the fabric, not the issuing
    state.SetIterationTime(summary.mean * 1e-6);
  }
  // -c N: N checks, the first that finds wrong elements ends them (as nccl-tests).
  std::uint64_t wrong = 0;
  for (int c = 0; c < ctx.options.checks && wrong == 0; ++c)
    wrong = check_result(ctx, layout, p, label);
  const double bus_bytes = ctx.op.bus_bytes(bytes, layout, o.dtype);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["count"] = static_cast<double>(layout.count);
  state.counters["in_place"] = p == Placement::in_place ? 1 : 0;
  state.counters["bus_factor"] = bytes > 0 ? bus_bytes / static_cast<double>(bytes) : 0;
  state.counters["wrong"] = static_cast<double>(wrong);
  state.counters["cpu_us"] = cpu_us;
  const int repetition = ctx.repetitions_seen[label]++;
  ctx.measurements.push_back({bytes, layout.count, p, summary, samples_us, ops_timed, cpu_us,
                              ops_per_sample, warmed.ops, bus_bytes, wrong, repetition, fabric,
                              judge_perf_line_rate(ctx, layout, bytes, bus_bytes, summary)});
  // Written now (into the results' .partial file), so a run that fails at a later size keeps it.
  if (ctx.results) {
    ctx.meta->nccl_algo = ctx.comm.algorithms();  // what NCCL reported for the sizes so far
    ctx.results->add(record_for(ctx, ctx.measurements.back(), *ctx.meta));
  }
  if (ctx.monitor) {
    const double busbw = busbw_GBps(bus_bytes, summary.mean * 1e-6);
    const std::map<std::string, std::string> which = {
        {"op", std::string(ctx.op.name())}, {"placement", std::string(placement_name(p))}};
    ctx.monitor->board().set("collreplay_busbw_gbps",
                             "Bus bandwidth of the last measured size (GB/s).", which, busbw);
    ctx.monitor->board().set("collreplay_message_bytes", "Size S of the last measured collective.",
                             which, static_cast<double>(bytes));
    ctx.monitor->board().set("collreplay_time_us", "Mean time of one op at the last size.", which,
                             summary.mean);
  }
  ctx.work_done += case_work(ctx.options, bytes);
  ctx.progress->advance(ctx.work_done, "case " + std::to_string(ctx.measurements.size()) + "/" +
                                           std::to_string(ctx.cases) + " " + label);
}

// One case per size: its layout for this rank and the bytes the op moves at that size.
struct PerfCases {
  std::vector<std::pair<std::uint64_t, OpLayout>> by_size;
  std::vector<Placement> placements;  // out of place, and in place where the op has it
  std::size_t largest_elements = 0;   // the buffers' size, for the largest case
};

PerfCases plan_cases(const OpSpec& op, const PerfOptions& options,
                     const std::vector<std::uint64_t>& sizes, const Communicator& comm) {
  PerfCases cases;
  cases.placements.push_back(Placement::out_of_place);
  if (op.supports_in_place()) cases.placements.push_back(Placement::in_place);
  OpParams params{options.seed, options.skew};
  params.root = options.root;
  params.reduce_op = options.reduce_op;
  const int ranks = comm.size();
  for (std::uint64_t requested : sizes) {
    const std::size_t count = op.count_for_bytes(requested, options.dtype, ranks);
    OpLayout layout = op.layout(count, ranks, comm.rank(), params);
    cases.largest_elements =
        std::max({cases.largest_elements, layout.send_elements, layout.recv_elements,
                  layout.in_place_elements});
    cases.by_size.emplace_back(op.bytes_for_count(count, options.dtype, ranks), std::move(layout));
  }
  return cases;
}

std::string what_runs(const PerfContext& ctx, const PerfCases& cases) {
  return std::to_string(ctx.cases) + " cases (" + format_bytes(cases.by_size.front().first) +
         " to " + format_bytes(cases.by_size.back().first) + ", " +
         std::to_string(cases.placements.size()) + " placement(s)) on " +
         std::to_string(ctx.comm.size()) + " ranks, -n " + std::to_string(ctx.options.iterations) +
         "; the time left follows the first cases";
}

// -N cycles: the whole sweep once per cycle, in order, as nccl-tests runs it.
void register_cases(PerfContext& ctx, const PerfCases& cases) {
  for (int cycle = 0; cycle < ctx.options.run_cycles; ++cycle)
    for (const auto& [bytes, layout] : cases.by_size)
      for (Placement p : cases.placements) {
        const std::string name = std::string(ctx.op.name()) + "/" + std::to_string(bytes) + "/" +
                                 std::string(placement_name(p));
        benchmark::RegisterBenchmark(
            name.c_str(),
            [&ctx, &layout = layout, p, bytes = bytes](benchmark::State& s) {
              run_case(ctx, layout, p, bytes, s);
            })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMicrosecond);
      }
}

// Runs the registered cases: rank 0 prints the table unless Google Benchmark's own format was
// asked for; the other ranks report nothing.
void run_cases(PerfContext& ctx, const RunMetadata& meta) {
  const PerfOptions& options = ctx.options;
  const OpSpec& op = ctx.op;
  bool own_format = false;
  for (const std::string& flag : options.benchmark_args)
    own_format |= flag.starts_with("--benchmark_format=") && flag != "--benchmark_format=console";
  // As nccl-tests: the reduction for ops that reduce, "none" for the others (which ignore -o).
  const std::string redop(op.reduces() ? reduce_op_name(options.reduce_op) : "none");
  PerfTableReporter table(stdout, std::string(nccl_tests_type_name(options.dtype)), redop,
                          op.supports_in_place(), op.has_root() ? options.root : -1,
                          options.report_cputime);
  NullReporter null_reporter;
  const bool rank0 = ctx.comm.rank() == 0;
  if (rank0 && !own_format) {
    print_header(ctx, meta);
    table.print_column_heads();
  }
  if (!rank0)
    benchmark::RunSpecifiedBenchmarks(&null_reporter);
  else if (own_format)
    benchmark::RunSpecifiedBenchmarks();  // the library's json/csv reporter
  else
    benchmark::RunSpecifiedBenchmarks(&table);
  if (rank0 && !own_format) {
    table.print_footer();
    print_line_rate_note(ctx);
  }
  benchmark::Shutdown();
}

}  // namespace

int run_perf_benchmark(std::string_view op_name, int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  const OpSpec& op = find_op(op_name);
  if (op.needs_partner())
    throw UsageError(std::string(op.name()) +
                     " completes only with its partner on the peer: benchmark send_recv instead");
  const std::optional<PerfOptions> parsed = parse_perf_cli(op.name(), argc, argv);
  if (!parsed) return kExitOk;
  const PerfOptions& options = *parsed;

  // Start: everything that can be wrong with the input is found before MPI starts; then the
  // communicator, watched and its transport verified (bench/flags/run_start.hpp).
  const BackendKind backend = options.backend.value_or(default_backend());
  require_backend_available(backend);
  if (backend != BackendKind::nccl && (options.graph_launches > 0 || options.register_buffers))
    throw UsageError("-G and -R need the nccl backend (CUDA graphs, NCCL buffer registration)");
  if (backend != BackendKind::nccl && options.agg_iters > 1)
    throw UsageError("-m " + std::to_string(options.agg_iters) +
                     ": the mpi backend waits for each op before the next may reuse its buffers, "
                     "so it has no group of ops to aggregate: -m needs --backend nccl");
  const RunSetup setup = prepare_run(options.run, backend);
  const std::vector<std::uint64_t> sizes = size_sweep(options);
  if (backend == BackendKind::mpi) check_host_memory(options);
  const bool is_rank0 = launcher_rank() == 0;
  ResultsFile results(options.out_path, is_rank0);
  initialize_benchmark_library(options.benchmark_args, is_rank0);
  MpiSession mpi(&argc, &argv);
  BackendOptions backend_options;
  backend_options.register_buffers = options.register_buffers;
  StartedRun started =
      start_run(backend, setup, backend_options, command_line, options.timeout_seconds);
  Communicator& comm = *started.comm;
  RunMetadata& meta = started.meta;
  const std::unique_ptr<MonitorSession> monitor = start_host_monitor(
      options.run.monitor, MPI_COMM_WORLD, comm.device_buffers(), options.timeout_seconds);

  // Measure: every case, each written as soon as it is measured (run_case).
  PerfContext ctx(op, options, comm);
  ctx.monitor = monitor.get();
  ctx.results = &results;
  ctx.meta = &meta;
  ctx.dilation = setup.dilation;
  ctx.node_links =
      emulated_node_links(setup.fabric, setup.emulated, meta.hosts, setup.emulate_nodes);
  const PerfCases cases = plan_cases(op, options, sizes, comm);
  double total_work = 0;
  for (const auto& c : cases.by_size)
    total_work += case_work(options, c.first) * cases.placements.size() * options.run_cycles;
  const Progress progress(std::string(op.name()) + "_perf", total_work,
                          progress_wanted(options.progress, comm.rank()));
  ctx.progress = &progress;
  ctx.cases = static_cast<int>(cases.by_size.size() * cases.placements.size()) * options.run_cycles;
  progress.announce(what_runs(ctx, cases));
  // Buffers for the largest size, allocated once (as nccl-tests does).
  const std::size_t buffer_bytes =
      std::max<std::size_t>(cases.largest_elements * dtype_size_bytes(options.dtype), 1);
  ctx.buffer_a = comm.allocate(buffer_bytes);
  ctx.buffer_b = comm.allocate(buffer_bytes);
  register_cases(ctx, cases);
  run_cases(ctx, meta);
  comm.release(ctx.buffer_a);
  comm.release(ctx.buffer_b);

  // Report: the counters' records, then the data check's verdict.
  for (nlohmann::json& record :
       finish_host_monitor(monitor.get(), MPI_COMM_WORLD, options.timeout_seconds)) {
    record["run"] = meta.to_json();
    results.add(std::move(record));
  }
  results.commit();
  std::uint64_t wrong = 0;
  for (const Measurement& m : ctx.measurements) wrong += m.wrong;
  if (wrong > 0)
    throw DataMismatchError(std::to_string(wrong) + " wrong elements in " + std::string(op.name()) +
                            " results (see the #wrong columns)");
  return kExitOk;
}

}  // namespace collreplay
