#include "bench/perf/perf_harness.hpp"

#include <optional>

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/app/guarded_main.hpp"
#include "bench/app/progress.hpp"
#include "bench/app/rank_stats.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/flags/run_flags.hpp"
#include "bench/monitor/host_monitor.hpp"
#include "bench/perf/perf_cli.hpp"
#include "bench/perf/perf_context.hpp"
#include "bench/perf/perf_report.hpp"
#include "bench/perf/perf_samples.hpp"
#include "bench/perf/perf_setup.hpp"
#include "bench/perf/perf_table_reporter.hpp"
#include "collectives/backend.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "collectives/ops/op_registry.hpp"
#include "collectives/transport/transport_select.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

// Writes the seeded input (and poison elsewhere) into the placement's buffers.
void prepare_buffers(PerfContext& ctx, const OpLayout& layout, Placement p) {
  const DType t = ctx.options.dtype;
  const std::size_t es = dtype_size_bytes(t);
  const auto fill = [&](void* buffer, std::size_t elements, auto&& write) {
    if (!ctx.comm.device_buffers()) return write(buffer);
    ctx.staging.resize(elements * es);
    write(ctx.staging.data());
    ctx.comm.copy_from_host(buffer, ctx.staging.data(), elements * es);
  };
  fill(ctx.buffer_a, send_buffer_elements(layout, p),
       [&](void* host) { fill_send_buffer(ctx.op, layout, p, t, ctx.options.seed, host); });
  if (p == Placement::out_of_place)
    fill(ctx.buffer_b, layout.recv_elements,
         [&](void* host) { poison_recv_buffer(layout, t, host); });
}

std::uint64_t check_result(PerfContext& ctx, const OpLayout& layout, Placement p,
                           const std::string& label) {
  prepare_buffers(ctx, layout, p);
  void* send = ctx.buffer_a;
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  ctx.op.issue(ctx.comm, layout, send, recv, ctx.options.dtype);
  ctx.comm.wait_all(label + ", checked run");
  const std::size_t bytes = recv_buffer_elements(layout, p) * dtype_size_bytes(ctx.options.dtype);
  const void* host = recv;
  if (ctx.comm.device_buffers()) {
    ctx.staging.resize(bytes);
    ctx.comm.copy_to_host(ctx.staging.data(), recv, bytes);
    host = ctx.staging.data();
  }
  std::uint64_t wrong = count_wrong(ctx.op, layout, p, ctx.options.dtype, ctx.options.seed, host);
  all_reduce_in_place(MPI_COMM_WORLD, &wrong, 1, MPI_UINT64_T, MPI_SUM, ctx.options.timeout_seconds,
                      label + ", the count of wrong elements");
  return wrong;
}

// The time between each two consecutive events, over the ops issued between them, in us.
void append_samples_between(const std::vector<std::shared_ptr<StreamEvent>>& events,
                            double ops_per_sample, std::vector<double>& samples_us) {
  for (auto& event : events) event->synchronize();
  for (std::size_t i = 1; i < events.size(); ++i)
    samples_us.push_back(events[i]->elapsed_ms_since(*events[i - 1]) * 1e3 / ops_per_sample);
}

// Per-op times of one case, as samples, and how many ops they cover.
struct TimedOps {
  std::vector<double> samples_us;  // each the mean per-op time of the ops it covers
  std::size_t ops = 0;
};

// Times up to -n ops of one case and returns the samples combined across ranks (--report),
// sample by sample. On the host backend each op is waited for before the next is issued: MPI
// forbids reusing the buffers of a pending op, and a per-op time is what IMB reports. On a GPU
// stream the ops queue back to back, as in nccl-tests; an event between every two ops (-I 1, and
// --stable, which needs per-op samples) costs a few microseconds of host time per op, which
// small ops pay, so by default (-I 0) a sample covers every op issued between two checks. With
// --stable PCT the ranks look at the combined samples at agreed op counts and stop together once
// the p50 is known to PCT.
TimedOps time_ops(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label) {
  const DType t = ctx.options.dtype;
  void* send = ctx.buffer_a;
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  const bool pipelined = ctx.comm.backend() == BackendKind::nccl;
  const int n = ctx.options.iterations;
  const bool stable = ctx.options.stable_pct > 0;
  const bool per_op = times_each_op(ctx.options, ctx.comm.backend());
  std::vector<double> samples_us;  // this rank's
  TimedOps timed;
  int next_check = stable ? std::min<int>(n, kMinStableSamples) : n;
  ctx.comm.barrier();
  int done = 0;
  while (done < n) {
    if (pipelined) {
      std::vector<std::shared_ptr<StreamEvent>> events{ctx.comm.record()};
      for (int i = done; i < next_check; ++i) {
        ctx.op.issue(ctx.comm, layout, send, recv, t);
        if (per_op) events.push_back(ctx.comm.record());
      }
      if (!per_op) events.push_back(ctx.comm.record());
      ctx.comm.wait_all(label + ", timed iterations");
      append_samples_between(events, per_op ? 1.0 : next_check - done, samples_us);
    } else {
      for (int i = done; i < next_check; ++i) {
        const auto start = ctx.comm.record();
        ctx.op.issue(ctx.comm, layout, send, recv, t);
        const auto stop = ctx.comm.record();
        stop->synchronize();
        start->synchronize();
        samples_us.push_back(stop->elapsed_ms_since(*start) * 1e3);
      }
    }
    done = next_check;
    timed.samples_us = samples_us;
    combine_samples_across_ranks(timed.samples_us, ctx.options.report, MPI_COMM_WORLD,
                                 ctx.options.timeout_seconds);
    if (stable && median_is_stable(summarize_samples(timed.samples_us), ctx.options.stable_pct))
      break;
    next_check = std::min(n, done + std::max(5, done / 4));
  }
  timed.ops = static_cast<std::size_t>(done);
  return timed;
}

// -G: N launches of a graph holding -n ops, each launch one sample (its time over -n), as
// nccl-tests times its graph mode.
TimedOps time_graph_launches(PerfContext& ctx, CapturedWork& graph, const std::string& label) {
  ctx.comm.barrier();
  std::vector<std::shared_ptr<StreamEvent>> events{ctx.comm.record()};
  for (int launch = 0; launch < ctx.options.graph_launches; ++launch) {
    graph.launch();
    events.push_back(ctx.comm.record());
  }
  ctx.comm.wait_all(label + ", timed graph launches");
  TimedOps timed;
  append_samples_between(events, ctx.options.iterations, timed.samples_us);
  combine_samples_across_ranks(timed.samples_us, ctx.options.report, MPI_COMM_WORLD,
                               ctx.options.timeout_seconds);
  timed.ops = static_cast<std::size_t>(ctx.options.graph_launches) *
              static_cast<std::size_t>(ctx.options.iterations);
  return timed;
}

// Records -n ops into a graph after one plain op (which sizes any staging buffer first) and
// launches it once, so that the timed launches find it uploaded and warm.
std::unique_ptr<CapturedWork> capture_case(PerfContext& ctx, const OpLayout& layout, void* send,
                                           void* recv, const std::string& label) {
  const DType t = ctx.options.dtype;
  ctx.op.issue(ctx.comm, layout, send, recv, t);
  ctx.comm.wait_all(label + ", before capture");
  std::unique_ptr<CapturedWork> graph = ctx.comm.capture([&] {
    for (int i = 0; i < ctx.options.iterations; ++i) ctx.op.issue(ctx.comm, layout, send, recv, t);
  });
  graph->launch();
  ctx.comm.wait_all(label + ", graph warm-up");
  return graph;
}

// One Google Benchmark case: warm-up, then the timed ops; the case's manual time is the mean
// per-op time (as nccl-tests' time column), the same number on every rank.
void run_case(PerfContext& ctx, const OpLayout& layout, Placement p, std::uint64_t bytes,
              benchmark::State& state) {
  const std::string label = case_label(ctx.op, bytes, p, ctx.comm.size());
  const DType t = ctx.options.dtype;
  void* send = ctx.buffer_a;
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  prepare_buffers(ctx, layout, p);
  const bool pipelined = ctx.comm.backend() == BackendKind::nccl;
  for (int i = 0; i < ctx.options.warmup_iterations; ++i) {
    ctx.op.issue(ctx.comm, layout, send, recv, t);
    if (!pipelined) ctx.comm.wait_all(label + ", warm-up");
  }
  ctx.comm.wait_all(label + ", warm-up");
  const std::unique_ptr<CapturedWork> graph =
      ctx.options.graph_launches > 0 ? capture_case(ctx, layout, send, recv, label) : nullptr;
  SampleSummary summary;
  std::size_t ops_timed = 0;
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
      timed = graph ? time_graph_launches(ctx, *graph, label) : time_ops(ctx, layout, p, label);
    } catch (const TimeoutError& e) {
      throw TimeoutError(label + ": " + e.what());  // the op, its size and its group, first
    }
    if (sampled) fabric = fabric_bytes_between(before, ctx.monitor->fabric_now());
    for (double& us : timed.samples_us) us /= ctx.options.run.dilation;
    summary = summarize_samples(timed.samples_us);
    ops_timed = timed.ops;
    state.SetIterationTime(summary.mean * 1e-6);
  }
  const std::uint64_t wrong = ctx.options.check ? check_result(ctx, layout, p, label) : 0;
  const double bus_bytes = ctx.op.bus_bytes(bytes, layout, t);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["count"] = static_cast<double>(layout.count);
  state.counters["in_place"] = p == Placement::in_place ? 1 : 0;
  state.counters["bus_factor"] = bytes > 0 ? bus_bytes / static_cast<double>(bytes) : 0;
  state.counters["wrong"] = static_cast<double>(wrong);
  const int repetition = ctx.repetitions_seen[label]++;
  ctx.measurements.push_back(
      {bytes, layout.count, p, summary, ops_timed, bus_bytes, wrong, repetition, fabric});
  // Written now (into the results' .partial file), so a run that fails at a later size keeps it.
  if (ctx.results) {
    ctx.meta->nccl_algo = ctx.comm.algorithms();  // what NCCL reported for the sizes so far
    ctx.results->add(record_for(ctx, ctx.measurements.back(), *ctx.meta));
  }
  if (ctx.monitor) {
    const double busbw = summary.mean > 0 ? bus_bytes / (summary.mean * 1e-6) / 1e9 : 0;
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

}  // namespace

int run_perf_benchmark(std::string_view op_name, int argc, char** argv) {
  const std::vector<std::string> command_line(argv, argv + argc);
  const OpSpec& op = find_op(op_name);
  const std::optional<PerfOptions> parsed = parse_perf_cli(op.name(), argc, argv);
  if (!parsed) return kExitOk;
  const PerfOptions& options = *parsed;

  // Everything that can be wrong with the input is found here, before MPI starts.
  const BackendKind backend = options.backend.value_or(default_backend());
  require_backend_available(backend);
  if (backend != BackendKind::nccl && (options.graph_launches > 0 || options.register_buffers))
    throw UsageError("-G and -R need the nccl backend (CUDA graphs, NCCL buffer registration)");
  const RunSetup setup = prepare_run(options.run, backend);
  const std::vector<std::uint64_t> sizes = size_sweep(options);
  if (backend == BackendKind::mpi) check_host_memory(options);
  const bool is_rank0 = launcher_rank() == 0;
  ResultsFile results(options.out_path, is_rank0);
  initialize_benchmark_library(options.benchmark_args, is_rank0);

  MpiSession mpi(&argc, &argv);
  BackendOptions backend_options;
  backend_options.timeout_seconds = options.timeout_seconds;
  setup.fill(backend_options);
  backend_options.register_buffers = options.register_buffers;
  const std::unique_ptr<Communicator> comm =
      make_communicator(backend, MPI_COMM_WORLD, backend_options);
  comm->barrier();  // a first collective, so that transport() reports what was really used
  RunMetadata meta =
      collect_run_metadata(*comm, MPI_COMM_WORLD, command_line, setup.transport.name());
  describe_run(meta, setup);
  int mismatch = transport_matches(meta.transport_asked, meta.transport_verified) ? 0 : 1;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mismatch, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (mismatch)
    throw TransportMismatchError("--transport " + meta.transport_asked + " was asked for, but " +
                                 meta.backend + " uses " + meta.transport_verified);

  const std::unique_ptr<MonitorSession> monitor = start_host_monitor(
      options.run.monitor, MPI_COMM_WORLD, comm->device_buffers(), options.timeout_seconds);
  PerfContext ctx(op, options, *comm);
  ctx.monitor = monitor.get();
  ctx.results = &results;
  ctx.meta = &meta;
  const int ranks = comm->size();
  const OpParams params{options.seed, options.skew};
  std::vector<Placement> placements{Placement::out_of_place};
  if (op.supports_in_place()) placements.push_back(Placement::in_place);

  // Buffers for the largest size, allocated once (as nccl-tests does).
  std::size_t largest_elements = 0;
  std::vector<std::pair<std::uint64_t, OpLayout>> cases;
  for (std::uint64_t requested : sizes) {
    const std::size_t count = op.count_for_bytes(requested, options.dtype, ranks);
    OpLayout layout = op.layout(count, ranks, comm->rank(), params);
    largest_elements = std::max(
        {largest_elements, layout.send_elements, layout.recv_elements, layout.in_place_elements});
    cases.emplace_back(op.bytes_for_count(count, options.dtype, ranks), std::move(layout));
  }
  double total_work = 0;
  for (const auto& c : cases) total_work += case_work(options, c.first) * placements.size();
  const Progress progress(std::string(op.name()) + "_perf", total_work,
                          progress_wanted(options.progress, comm->rank()));
  ctx.progress = &progress;
  ctx.cases = static_cast<int>(cases.size() * placements.size());
  progress.announce(std::to_string(ctx.cases) + " cases (" + format_bytes(cases.front().first) +
                    " to " + format_bytes(cases.back().first) + ", " +
                    std::to_string(placements.size()) + " placement(s)) on " +
                    std::to_string(ranks) + " ranks, -n " + std::to_string(options.iterations) +
                    "; the time left follows the first cases");
  const std::size_t buffer_bytes =
      std::max<std::size_t>(largest_elements * dtype_size_bytes(options.dtype), 1);
  ctx.buffer_a = comm->allocate(buffer_bytes);
  ctx.buffer_b = comm->allocate(buffer_bytes);

  for (const auto& [bytes, layout] : cases)
    for (Placement p : placements) {
      const std::string name = std::string(op.name()) + "/" + std::to_string(bytes) + "/" +
                               std::string(placement_name(p));
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&ctx, &layout = layout, p, bytes = bytes](benchmark::State& s) {
                                     run_case(ctx, layout, p, bytes, s);
                                   })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMicrosecond);
    }

  // Rank 0 prints the table unless Google Benchmark's own format was asked for.
  bool own_format = false;
  for (const std::string& flag : options.benchmark_args)
    own_format |= flag.starts_with("--benchmark_format=") && flag != "--benchmark_format=console";
  PerfTableReporter table(stdout, table_type_name(options.dtype), std::string(op.reduction()),
                          op.supports_in_place());
  NullReporter null_reporter;
  if (comm->rank() == 0 && !own_format) {
    print_header(ctx, meta);
    table.print_column_heads();
  }
  if (comm->rank() != 0)
    benchmark::RunSpecifiedBenchmarks(&null_reporter);
  else if (own_format)
    benchmark::RunSpecifiedBenchmarks();  // the library's json/csv reporter
  else
    benchmark::RunSpecifiedBenchmarks(&table);
  if (comm->rank() == 0 && !own_format) table.print_footer();
  benchmark::Shutdown();

  comm->release(ctx.buffer_a);
  comm->release(ctx.buffer_b);
  std::uint64_t wrong = 0;
  for (const Measurement& m : ctx.measurements) {
    wrong += m.wrong;
  }
  for (nlohmann::json& record :
       finish_host_monitor(monitor.get(), MPI_COMM_WORLD, options.timeout_seconds)) {
    record["run"] = meta.to_json();
    results.add(std::move(record));
  }
  results.commit();
  if (wrong > 0)
    throw DataMismatchError(std::to_string(wrong) + " wrong elements in " + std::string(op.name()) +
                            " results (see the #wrong columns)");
  return kExitOk;
}

}  // namespace collreplay
