#include "bench/perf/cli/perf_cli.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdio>

#include "bench/app/guarded_main.hpp"
#include "bench/perf/cli/nccl_tests_flags.hpp"
#include "collectives/backend.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

constexpr std::size_t kMaxSizes = 4096;

bool is_benchmark_flag(std::string_view arg) { return arg.starts_with("--benchmark_"); }

// "-b -5" would look like an unknown option "-5" to CLI11; glue such values to their option
// ("-b-5", "--minbytes=-5") so the parsers can say what is wrong with the number.
std::vector<std::string> glue_negative_values(std::vector<std::string> args) {
  const auto takes_size = [](std::string_view a) {
    for (std::string_view name :
         {"-b", "--minbytes", "-e", "--maxbytes", "-i", "--stepbytes", "-f", "--stepfactor", "-n",
          "--iters", "-w", "--warmup_iters", "-c", "--check", "-T", "--timeout", "--seed",
          "--stable", "--dilate", "--emulate-nodes", "-G", "--cudagraph", "-R", "--local_register",
          "-I", "--per_iter_timing", "-r", "--root", "-t", "--nthreads", "-g", "--ngpus", "-a",
          "--average", "-z", "--blocking", "-m", "--agg_iters", "-N", "--run_cycles", "-C",
          "--report_cputime", "-y", "--stream_null", "-p", "--parallel_init", "-S", "-M", "-u",
          "-x", "-D", "-V", "-K"})
      if (a == name) return true;
    return false;
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (takes_size(args[i]) && i + 1 < args.size() && args[i + 1].size() > 1 &&
        args[i + 1][0] == '-' && std::isdigit(static_cast<unsigned char>(args[i + 1][1]))) {
      out.push_back(args[i] + (args[i].starts_with("--") ? "=" : "") + args[i + 1]);
      ++i;
    } else {
      out.push_back(args[i]);
    }
  }
  return out;
}

void check_benchmark_flag(const std::string& arg) {
  for (std::string_view name : {"--benchmark_format=", "--benchmark_out_format="}) {
    if (!arg.starts_with(name)) continue;
    const std::string value = arg.substr(name.size());
    if (value != "console" && value != "json" && value != "csv")
      throw UsageError(std::string(name.substr(0, name.size() - 1)) + " '" + value +
                       "' is not console, json or csv");
  }
}

int positive_int(std::uint64_t value, const char* what, int minimum) {
  if (value < static_cast<std::uint64_t>(minimum) || value > 1'000'000'000)
    throw UsageError(std::string(what) + " must be between " + std::to_string(minimum) +
                     " and 1000000000");
  return static_cast<int>(value);
}

// The flags as typed, each checked and converted by read_texts.
struct PerfTexts {
  std::string min_text = "32M", max_text = "32M", step_text = "1M", factor_text = "1";
  std::string iters_text = "20", warmup_text = "1", check_text = "1", dtype_text = "float";
  std::string backend_text, report_text, timeout_text = "300", seed_text = "1";
  std::string skew_text = "uniform", stable_text, graph_text = "0", register_text = "0";
  std::string per_iter_text = "0", root_text = "0";
};

void add_perf_options(CLI::App& app, std::string_view op_name, PerfTexts& t,
                      PerfOptions& options) {
  app.add_option("-b,--minbytes", t.min_text, "smallest size S in bytes (1K, 16M, 4G)");
  app.add_option("-e,--maxbytes", t.max_text, "largest size S in bytes");
  app.add_option("-i,--stepbytes", t.step_text, "additive size step when -f is 1");
  app.add_option("-f,--stepfactor", t.factor_text, "multiplicative size step");
  app.add_option("-n,--iters", t.iters_text, "timed iterations per size (--stable: at most this many samples)");
  app.add_option("-w,--warmup_iters", t.warmup_text,
                 "warm-up iterations per size (--stable: at most, sized to the op)");
  app.add_option("-c,--check", t.check_text, "data checks per size (0: none)");
  app.add_option("-d,--datatype", t.dtype_text,
                 "int8|uint8|int32|uint32|int64|uint64|half|float|double|bfloat16|f8e4m3|f8e5m2");
  app.add_option("--backend", t.backend_text, "nccl|mpi (default: nccl when a GPU is visible)");
  app.add_option("--out", options.out_path, "JSON Lines results file (written at the end)");
  app.add_option("--report", t.report_text,
                 "combine ranks' times: avg (default, as nccl-tests)|max|min|rank0 (as -a)");
  app.add_option("-T,--timeout", t.timeout_text,
                 "seconds before a stuck collective aborts (0: off; default 300)");
  add_run_flags(app, options.run);
  app.add_option("--seed", t.seed_text, "seed of the fill pattern and the skew");
  app.add_option("--stable", t.stable_text,
                 "stop timing a size once the p50's 95% confidence interval is within this "
                 "percentage (at most -n samples, each as many ops as span 200 us; warm-up: one "
                 "op and as many more as span 2 ms, at most -w)");
  app.add_option("-I,--per_iter_timing", t.per_iter_text,
                 "nccl: 1 times every op between its own events (host MPI always does)");
  app.add_option("-G,--cudagraph", t.graph_text,
                 "capture -n ops into a CUDA graph and time this many launches of it (nccl only)");
  app.add_option("-R,--local_register", t.register_text,
                 "1: ncclMemAlloc + ncclCommRegister the buffers (nccl only)");
  if (op_name == "all_to_allv")
    app.add_option("--skew", t.skew_text, "per-peer counts: uniform|zipf:S|hotspot:K");
  if (op_name == "broadcast")
    app.add_option("-r,--root", t.root_text, "the rank whose buffer every rank receives");
  app.add_flag("--progress", options.progress,
               "progress on stderr (default: only when stderr is a terminal)");
  app.footer(
      "Google Benchmark flags (--benchmark_repetitions=N, --benchmark_format=json, ...) "
      "are passed through.");

}

// Converts and checks the typed flags: UsageError (one line) for the first that no run can use;
// `args` as typed, for the flag's name in messages.
void read_texts(const PerfTexts& t, const std::vector<std::string>& args, PerfOptions& options) {
  options.min_bytes = parse_bytes(t.min_text, "-b");
  options.max_bytes = parse_bytes(t.max_text, "-e");
  options.step_bytes = parse_bytes(t.step_text, "-i");
  options.step_factor = parse_bytes(t.factor_text, "-f");
  if (options.step_factor == 0)
    throw UsageError("-f 0: a step factor multiplies each size: give 2 or more, or 1 with -i for "
                     "an additive step");
  options.iterations = positive_int(parse_bytes(t.iters_text, "-n"), "-n", 1);
  options.warmup_iterations = positive_int(parse_bytes(t.warmup_text, "-w"), "-w", 0);
  options.checks = positive_int(parse_bytes(t.check_text, "-c"), "-c", 0);
  options.dtype = parse_perf_dtype(t.dtype_text, typed_flag(args, {"-d", "--datatype"}));
  if (!t.backend_text.empty()) options.backend = parse_backend(t.backend_text);
  if (!t.report_text.empty()) options.report = parse_rank_reduce(t.report_text);
  char* end = nullptr;
  options.timeout_seconds = std::strtod(t.timeout_text.c_str(), &end);
  if (t.timeout_text.empty() || *end != '\0' || !(options.timeout_seconds >= 0) ||
      options.timeout_seconds > 1e6)
    throw UsageError("-T/--timeout '" + t.timeout_text +
                     "' is not a number of seconds (0 disables)");
  options.seed = parse_bytes(t.seed_text, "--seed");
  if (!t.stable_text.empty()) {
    options.stable_pct = std::strtod(t.stable_text.c_str(), &end);
    if (*end != '\0' || !(options.stable_pct > 0) || options.stable_pct > 100)
      throw UsageError("--stable '" + t.stable_text + "' is not a percentage in (0, 100]");
  }
  options.skew = parse_skew(t.skew_text);
  options.root = positive_int(parse_bytes(t.root_text, "-r"), "-r", 0);
  options.graph_launches = positive_int(parse_bytes(t.graph_text, "-G"), "-G", 0);
  if (t.register_text != "0" && t.register_text != "1")
    throw UsageError(
        "-R must be 0 or 1 (symmetric registration, nccl-tests' -R 2, is not offered)");
  options.register_buffers = t.register_text == "1";
  if (t.per_iter_text != "0" && t.per_iter_text != "1") throw UsageError("-I must be 0 or 1");
  options.per_iteration_timing = t.per_iter_text == "1";
  if (options.graph_launches > 0 && options.per_iteration_timing)
    throw UsageError("-I 1 times single ops, -G whole graphs: give one of them");
  if (options.graph_launches > 0 && options.stable_pct > 0)
    throw UsageError("--stable and -G both set how often a size runs: give one of them");
  if (options.min_bytes > options.max_bytes)
    throw UsageError("-b " + t.min_text + " is larger than -e " + t.max_text);
}

}  // namespace

std::optional<PerfOptions> parse_perf_cli(std::string_view op_name, int argc, char** argv) {
  PerfOptions options;
  std::vector<std::string> own_args;
  for (int i = 1; i < argc; ++i) {
    if (is_benchmark_flag(argv[i])) {
      check_benchmark_flag(argv[i]);
      options.benchmark_args.emplace_back(argv[i]);
    } else {
      own_args.emplace_back(argv[i]);
    }
  }
  own_args = glue_negative_values(std::move(own_args));

  PerfTexts t;
  NcclTestsTexts nccl_tests;
  CLI::App app(std::string(op_name) + " benchmark (nccl-tests conventions; collreplay)");
  add_perf_options(app, op_name, t, options);
  add_nccl_tests_flags(app, nccl_tests);
  std::vector<const char*> cli_argv{argv[0]};
  for (const std::string& a : own_args) cli_argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(cli_argv.size()), cli_argv.data());
  } catch (const CLI::CallForHelp&) {
    if (launcher_rank() == 0) std::fputs(app.help().c_str(), stdout);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }

  read_texts(t, own_args, options);
  read_nccl_tests_flags(nccl_tests, own_args, t.report_text, options);
  size_sweep(options);  // rejects endless sweeps now, before MPI
  return options;
}

std::vector<std::uint64_t> size_sweep(const PerfOptions& o) {
  if (o.step_factor <= 1 && o.step_bytes == 0 && o.min_bytes < o.max_bytes)
    throw UsageError("-i 0 with -f 1 never reaches -e");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = o.min_bytes; s <= o.max_bytes;) {
    sizes.push_back(s);
    if (sizes.size() > kMaxSizes)
      throw UsageError("the size sweep has more than " + std::to_string(kMaxSizes) +
                       " sizes (raise -i or -f)");
    // Stop before stepping past -e (this also keeps the arithmetic from overflowing).
    if (o.step_factor > 1 ? s > o.max_bytes / o.step_factor : s > o.max_bytes - o.step_bytes) break;
    const std::uint64_t next = o.step_factor > 1 ? s * o.step_factor : s + o.step_bytes;
    if (next == s) break;  // a zero size does not grow by a factor
    s = next;
  }
  return sizes;
}

}  // namespace collreplay
