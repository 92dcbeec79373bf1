#include "bench/perf_harness.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/guarded_main.hpp"
#include "bench/perf_cli.hpp"
#include "bench/perf_table_reporter.hpp"
#include "bench/rank_stats.hpp"
#include "bench/results.hpp"
#include "bench/run_metadata.hpp"
#include "collectives/backend.hpp"
#include "collectives/mpi_check.hpp"
#include "collectives/op_registry.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

// nccl-tests' names for the type column.
const char* table_type_name(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f16: return "half";
    case DType::bf16: return "bfloat16";
    case DType::fp8: return "fp8";
  }
  return "?";
}

// Host buffers for the largest size, per rank: used before MPI to turn absurd sizes into a
// usage error instead of an allocation failure halfway through a sweep.
void check_host_memory(const PerfOptions& options) {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const std::uint64_t ranks_here = local ? std::strtoull(local, nullptr, 10) : 1;
  const auto physical_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                              static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  // Two buffers of S each (send + recv, or the in-place buffer and its twin) per rank.
  const long double needed = 2.0L * options.max_bytes * static_cast<long double>(ranks_here ? ranks_here : 1);
  if (needed > physical_bytes)
    throw UsageError("-e " + format_bytes(options.max_bytes) + " needs " +
                     format_bytes(static_cast<std::uint64_t>(std::min<long double>(needed, 1e18L))) +
                     " of buffers on this node, which has " + format_bytes(physical_bytes));
}

// Hands the --benchmark_* flags to Google Benchmark. Ranks other than 0 drop --benchmark_out*
// so that only one process writes Google Benchmark's own output file.
void initialize_benchmark_library(const std::vector<std::string>& flags, bool is_rank0) {
  std::vector<std::string> kept{"collreplay"};
  for (const std::string& flag : flags)
    if (is_rank0 || !flag.starts_with("--benchmark_out")) kept.push_back(flag);
  std::vector<char*> argv;
  for (std::string& s : kept) argv.push_back(s.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(kept.size());
  benchmark::Initialize(&argc, argv.data());
  if (argc > 1) throw UsageError(std::string("unknown Google Benchmark flag ") + argv[1]);
}

bool transport_matches(const std::string& asked, const std::string& verified) {
  if (asked == "any" || asked == verified) return true;
  // "ucx" matches "ucx:tcp"; "mpi" matches anything the MPI backend reports.
  return verified.starts_with(asked + ":") || asked == "mpi";
}

struct Measurement {
  std::uint64_t bytes;
  std::size_t count;
  Placement placement;
  double time_us;
  std::uint64_t wrong;
  int repetition;
};

// Everything the benchmark cases share; lives for the duration of the run.
struct PerfContext {
  PerfContext(const OpSpec& o, const PerfOptions& opts, Communicator& c)
      : op(o), options(opts), comm(c) {}
  const OpSpec& op;
  const PerfOptions& options;
  Communicator& comm;
  void* buffer_a = nullptr;  // send (out-of-place) or the single buffer (in-place)
  void* buffer_b = nullptr;  // recv (out-of-place)
  std::vector<unsigned char> staging;  // host copy of a buffer, for device buffers only
  std::vector<Measurement> measurements;
  std::map<std::string, int> repetitions_seen;
};

std::string case_label(const OpSpec& op, std::uint64_t bytes, Placement p) {
  return std::string(op.name()) + " of " + format_bytes(bytes) + " (" +
         std::string(placement_name(p)) + ")";
}

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
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
  return wrong;
}

// One Google Benchmark case: warm-up, then each benchmark iteration is one timed block of -n
// back-to-back ops between two communicator events, after a barrier; the per-op time of each
// rank is combined across ranks (--report) so every rank reports the same number.
void run_case(PerfContext& ctx, const OpLayout& layout, Placement p, std::uint64_t bytes,
              benchmark::State& state) {
  const std::string label = case_label(ctx.op, bytes, p);
  const DType t = ctx.options.dtype;
  void* send = ctx.buffer_a;
  void* recv = p == Placement::in_place ? ctx.buffer_a : ctx.buffer_b;
  prepare_buffers(ctx, layout, p);
  for (int i = 0; i < ctx.options.warmup_iterations; ++i) ctx.op.issue(ctx.comm, layout, send, recv, t);
  ctx.comm.wait_all(label + ", warm-up");
  double time_us = 0;
  for (auto _ : state) {
    ctx.comm.barrier();
    const auto start = ctx.comm.record();
    for (int i = 0; i < ctx.options.iterations; ++i) ctx.op.issue(ctx.comm, layout, send, recv, t);
    const auto stop = ctx.comm.record();
    ctx.comm.wait_all(label + ", timed iterations");
    stop->synchronize();
    start->synchronize();
    time_us = combine_across_ranks(stop->elapsed_ms_since(*start) * 1e3 / ctx.options.iterations,
                                   ctx.options.report, MPI_COMM_WORLD);
    state.SetIterationTime(time_us * 1e-6);
  }
  const std::uint64_t wrong = ctx.options.check ? check_result(ctx, layout, p, label) : 0;
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["count"] = static_cast<double>(layout.count);
  state.counters["in_place"] = p == Placement::in_place ? 1 : 0;
  state.counters["bus_factor"] = ctx.op.bus_factor(layout.ranks);
  state.counters["wrong"] = static_cast<double>(wrong);
  const int repetition = ctx.repetitions_seen[label]++;
  ctx.measurements.push_back({bytes, layout.count, p, time_us, wrong, repetition});
}

nlohmann::json record_for(const PerfContext& ctx, const Measurement& m, const RunMetadata& meta) {
  const double algbw = m.time_us > 0 ? static_cast<double>(m.bytes) / (m.time_us * 1e-6) / 1e9 : 0;
  nlohmann::json record = {
      {"op", ctx.op.name()},
      {"bytes", m.bytes},
      {"count", m.count},
      {"dtype", dtype_name(ctx.options.dtype)},
      {"placement", placement_name(m.placement)},
      {"ranks", meta.ranks},
      {"nodes", meta.nodes},
      {"time_us", m.time_us},
      {"algbw_GBps", algbw},
      {"busbw_GBps", algbw * ctx.op.bus_factor(meta.ranks)},
      {"wrong", m.wrong},
      {"backend", meta.backend},
      {"transport", meta.transport_verified},
      {"report", rank_reduce_name(ctx.options.report)},
      {"iterations", ctx.options.iterations},
      {"warmup_iterations", ctx.options.warmup_iterations},
      {"repetition", m.repetition},
      {"seed", ctx.options.seed},
      {"run", meta.to_json()}};
  if (ctx.op.name() == "all_to_allv") record["skew"] = skew_name(ctx.options.skew);
  return record;
}

void print_header(const PerfContext& ctx, const RunMetadata& meta) {
  const PerfOptions& o = ctx.options;
  std::printf("# collreplay %s_perf: backend %s, transport %s (asked: %s), %d ranks on %d node%s\n",
              std::string(ctx.op.name()).c_str(), meta.backend.c_str(),
              meta.transport_verified.c_str(), meta.transport_asked.c_str(), meta.ranks,
              meta.nodes, meta.nodes == 1 ? "" : "s");
  std::printf("#  minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d "
              "validation: %d report: %s%s\n",
              static_cast<unsigned long long>(o.min_bytes),
              static_cast<unsigned long long>(o.max_bytes),
              static_cast<unsigned long long>(o.step_factor > 1 ? o.step_factor : o.step_bytes),
              o.step_factor > 1 ? "factor" : "bytes", o.warmup_iterations, o.iterations,
              o.check ? 1 : 0, std::string(rank_reduce_name(o.report)).c_str(),
              ctx.op.name() == "all_to_allv" ? (" skew: " + skew_name(o.skew)).c_str() : "");
  std::printf("#\n# Using devices\n");
  for (int r = 0; r < meta.ranks; ++r)
    std::printf("#  Rank %2d on %12s device %s\n", r, meta.hosts[static_cast<std::size_t>(r)].c_str(),
                meta.devices[static_cast<std::size_t>(r)].c_str());
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
  const std::vector<std::uint64_t> sizes = size_sweep(options);
  if (backend == BackendKind::mpi) check_host_memory(options);
  const bool is_rank0 = launcher_rank() == 0;
  ResultsFile results(options.out_path, is_rank0);
  initialize_benchmark_library(options.benchmark_args, is_rank0);

  MpiSession mpi(&argc, &argv);
  BackendOptions backend_options;
  backend_options.timeout_seconds = options.timeout_seconds;
  const std::unique_ptr<Communicator> comm = make_communicator(backend, MPI_COMM_WORLD, backend_options);
  comm->barrier();  // a first collective, so that transport() reports what was really used
  const RunMetadata meta = collect_run_metadata(*comm, MPI_COMM_WORLD, command_line, options.transport);
  int mismatch = transport_matches(options.transport, meta.transport_verified) ? 0 : 1;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &mismatch, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (mismatch)
    throw TransportMismatchError("--transport " + options.transport + " was asked for, but " +
                                 meta.backend + " uses " + meta.transport_verified);

  PerfContext ctx(op, options, *comm);
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
    largest_elements = std::max({largest_elements, layout.send_elements, layout.recv_elements,
                                 layout.in_place_elements});
    cases.emplace_back(op.bytes_for_count(count, options.dtype, ranks), std::move(layout));
  }
  const std::size_t buffer_bytes = std::max<std::size_t>(largest_elements * dtype_size_bytes(options.dtype), 1);
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
  PerfTableReporter table(stdout, table_type_name(options.dtype),
                          op.name() == "all_gather" || op.name().starts_with("all_to_all") ? "none" : "sum",
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
    results.add(record_for(ctx, m, meta));
    wrong += m.wrong;
  }
  results.commit();
  if (wrong > 0)
    throw DataMismatchError(std::to_string(wrong) + " wrong elements in " +
                            std::string(op.name()) + " results (see the #wrong columns)");
  return kExitOk;
}

}  // namespace collreplay
