#include "bench/replay/cli/replay_cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

#include "bench/compute/gemm/grouped_tiles.hpp"
#include "bench/flags/parse_flags.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/replay/cli/dry_run.hpp"
#include "bench/replay/headroom.hpp"
#include "bench/replay/replay_run.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

// NCCL's syntax (src/graph/tuning.cc parseList): names separated by commas, case-insensitive,
// optionally all negated by a leading '^'.
void check_nccl_choice(const std::string& value, const char* flag,
                       std::initializer_list<const char*> names) {
  if (value.empty()) return;
  std::string list = value[0] == '^' ? value.substr(1) : value;
  std::string known;
  for (const char* n : names) known += (known.empty() ? "" : "|") + std::string(n);
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t comma = std::min(list.find(',', from), list.size());
    std::string item = list.substr(from, comma - from);
    for (char& ch : item) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    bool ok = false;
    for (const char* n : names) ok = ok || item == n;
    if (!ok)
      throw UsageError(std::string(flag) + " '" + value + "' names '" + item + "', not one of " +
                       known);
    from = comma + 1;
  }
}

}  // namespace

double ReplayOptions::stable_fraction() const {
  std::string text = stable;
  if (!text.empty() && text.back() == '%') text.pop_back();
  try {
    std::size_t used = 0;
    const double percent = std::stod(text, &used);
    if (used == text.size() && percent > 0 && percent < 100) return percent / 100;
  } catch (const std::exception&) {
  }
  throw UsageError("--stable must be a percentage in (0, 100), like 2%; got '" + stable + "'");
}

void add_replay_options(CLI::App& app, ReplayOptions& o) {
  app.add_option("--backend", o.backend, "nccl|mpi (default: nccl when a GPU is visible)");
  app.add_option("--steps", o.steps,
                 "timed steps per pass (default 0: until --stable, at most "
                 "--max-steps)");
  app.add_option("--max-steps", o.max_steps,
                 "cap of timed steps per pass in the until-stable mode");
  app.add_option("--stable", o.stable,
                 "a pass is stable when (max-min)/median of its last 5 "
                 "step times is below this (default 2%)");
  app.add_option("--warmup", o.warmup, "untimed overlapped steps before the passes (default 2)");
  app.add_option("--timeout", o.timeout_s,
                 "seconds before a stuck collective aborts the run "
                 "(0: off; default 300)");
  app.add_option("--compute-scale", o.compute_scale,
                 "stretch every compute slice X times "
                 "(calibration, default 1)");
  app.add_option("--target-mfu", o.target_mfu,
                 "choose --compute-scale so the compute-only step "
                 "runs at this MFU (0 < F <= 1)");
  app.add_option("--peak-tflops", o.peak_tflops,
                 "peak TFLOP/s per rank for MFU (default: 989, "
                 "H100/H200 bf16 dense, on GPU; a measured "
                 "sgemm peak on host)");
  app.add_option("--compute-threads", o.compute_threads, "host BLAS threads per rank (default 1)");
  app.add_option("--grouped-gemm", o.grouped_gemm,
                 "GPU engine, --experts grouped: auto (as torch._grouped_mm runs on this GPU: its "
                 "grouped kernel's tiles as one batched cuBLASLt GEMM on sm 9.x/10.x in bf16, "
                 "else a GEMM per group) | cublas-grouped (one cublasGemmGroupedBatchedEx) | "
                 "loop (a cuBLASLt GEMM per group)")
      ->capture_default_str();
  app.add_flag("--preflight", o.preflight,
               "check GPU health, GEMM speed of every rank and "
               "topology first");
  app.add_flag("--strict", o.strict, "preflight problems are errors (exit 6), not warnings");
  app.add_option("--slow-threshold", o.slow_threshold,
                 "preflight: a rank whose GEMM is slower "
                 "than the median by more than this "
                 "fraction is named (default 0.10)");
  app.add_option("--out", o.out, "JSON Lines results file (records: step, unit, op)");
  app.add_option("--trace-out", o.trace_out,
                 "write the measured step as a Chrome trace (Perfetto, chrome://tracing): per "
                 "rank its compute and comm streams, collectives, kernels and phases; readable "
                 "back with --trace. A path with %d: one file per rank; ending in .gz: gzip'd. "
                 "Not with --dry-run");
  app.add_flag("-c,--check", o.check, "verify every replayed collective's data once, untimed");
  app.add_option("-G,--cudagraph", o.graph_launches,
                 "after the passes, record the comm-only step as one CUDA graph and time this "
                 "many launches of it: the launch cost per collective (nccl; collectives of "
                 "one group)");
  app.add_flag("--progress", o.progress,
               "progress on stderr (default: only when stderr is a terminal)");
  add_run_flags(app, o.run);
  app.add_option("--nccl-algo", o.nccl_algo,
                 "NCCL_ALGO for this run: ring|tree|collnetdirect|"
                 "collnetchain|nvls|nvlstree|pat, a comma list, or "
                 "^list to exclude (recorded as run.nccl_algo)");
  app.add_option("--nccl-proto", o.nccl_proto,
                 "NCCL_PROTO for this run: simple|ll|ll128, a comma "
                 "list, or ^list (recorded as run.nccl_proto)");
  app.footer(headroom_help());
}

RunSetup validate_replay_options(const ReplayOptions& o) {
  o.stable_fraction();
  RunSetup parsed = parse_run_flags(o.run);
  if (o.steps < 0) throw UsageError("--steps must be >= 0");
  if (o.max_steps < 1) throw UsageError("--max-steps must be >= 1");
  if (o.warmup < 0) throw UsageError("--warmup must be >= 0");
  if (o.timeout_s < 0) throw UsageError("--timeout must be >= 0");
  if (!(o.compute_scale >= 0)) throw UsageError("--compute-scale must be >= 0");
  if (o.target_mfu < 0 || o.target_mfu > 1) throw UsageError("--target-mfu must be in (0, 1]");
  if (o.peak_tflops && !(*o.peak_tflops > 0)) throw UsageError("--peak-tflops must be > 0");
  if (o.compute_threads < 1) throw UsageError("--compute-threads must be >= 1");
  grouped_gemm_path(o.grouped_gemm);  // one line naming the choices when it is none of them
  if (o.graph_launches < 0) throw UsageError("-G must be >= 0 (graph launches; 0: off)");
  if (o.graph_launches > 0 && o.backend == "mpi")
    throw UsageError("-G needs the nccl backend (CUDA graphs)");
  if (!(o.slow_threshold >= 0)) throw UsageError("--slow-threshold must be >= 0");
  check_nccl_choice(
      o.nccl_algo, "--nccl-algo",
      {"ring", "tree", "collnet", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"});
  check_nccl_choice(o.nccl_proto, "--nccl-proto", {"simple", "ll", "ll128"});
  return parsed;
}

int replay_main(int argc, char** argv) {
  CLI::App app{"collreplay replay: FSDP / expert-parallel training step replay"};
  WorkloadRequest request;
  DryRunOptions dry;
  ReplayOptions replay;
  bool dry_run = false;
  add_workload_options(app, request);
  app.add_flag("--dry-run", dry_run, "print the schedule; no MPI, no GPU");
  app.add_option("--format", dry.format,
                 "dry-run output: table | json | slices (every GEMM and kernel of every compute op)")
      ->capture_default_str();
  app.add_option("--schedule", dry.schedule_file,
                 "load this schedule JSON instead of building one")
      ->excludes(add_trace_option(app, request));
  app.add_option("--save-schedule", dry.save_schedule, "write the schedule JSON here");
  add_replay_options(app, replay);
  if (auto exit_code = parse_flags(app, argc, argv)) return *exit_code;
  // Bad values are refused alike with --dry-run and without.
  const RunSetup parsed = validate_replay_options(replay);
  // A trace brings its own world unless --world asks for another (trace_import.hpp).
  if (!request.trace.empty() && app.count("--world") == 0) request.world = 0;
  // A dry run describes a GPU run unless --backend mpi asks for a host one.
  request.param_device = replay_param_device(replay.backend == "mpi", parsed);
  if (dry_run && !replay.trace_out.empty())
    throw UsageError(
        "--trace-out writes a measured step: run without --dry-run (--save-schedule writes "
        "the schedule)");
  if (dry_run) return run_dry_run(request, dry);
  replay.schedule_file = dry.schedule_file;
  replay.command_line.assign(argv, argv + argc);
  replay.gpus_per_node_given = app.count("--gpus-per-node") > 0;
  return run_replay(replay, request, parsed);
}

}  // namespace collreplay
