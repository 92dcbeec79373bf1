// Command line of the *_perf executables: nccl-tests flags plus collreplay's own. Parsed before
// MPI_Init, identically on every rank, so bad input fails fast with exit 2 and one line.
//   -b/-e/-i/-f  min/max size, additive step, multiplicative step (> 1; 1: add -i)
//   -n -w -c -d  iterations, warm-up iterations, checks per size (0: none), dtype (default float,
//                as nccl-tests; nccl-tests' names: nccl_tests_flags.hpp)
//   -t -g -a -o -z -m -N -T -C -y -p -J  and nccl-tests' others: nccl_tests_flags.hpp
//   --backend nccl|mpi  --out FILE.jsonl  --report avg|max|min|rank0  --timeout SECONDS
//   --transport auto|ib|socket|nvlink|shm --ifname NAME --emulate-nodes N --fabric NAME
//   --fabrics-file PATH --emulated --dilate D --compute SPEC (bench/flags/run_flags.hpp)
//   --seed N  --skew uniform|zipf:S|hotspot:K (all_to_allv only)  -r/--root R (broadcast only)
//   -I 0|1  nccl: time each op between its own events (default 0: the batch, as nccl-tests)
//   -G N  capture -n ops into a CUDA graph and time N launches of it (nccl-tests' --cudagraph)
//   -R 0|1  allocate with ncclMemAlloc and register the buffers (nccl-tests' --local_register)
//   --stable PCT  stop timing a size once its p50's 95% confidence interval is within PCT%, at
//                 most -n samples; warm-up and ops per sample sized to the op (bench/perf/timing/sampling_plan.hpp)
//   --benchmark_*  passed to Google Benchmark (e.g. --benchmark_repetitions=3)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/app/rank_stats.hpp"
#include "bench/flags/run_flags.hpp"
#include "collectives/communicator.hpp"
#include "collectives/reduce_op.hpp"
#include "collectives/values/peer_counts.hpp"
#include "common/dtype.hpp"

namespace collreplay {

struct PerfOptions {
  std::uint64_t min_bytes = 32u << 20;
  std::uint64_t max_bytes = 32u << 20;
  std::uint64_t step_bytes = 1u << 20;
  std::uint64_t step_factor = 1;  // > 1: multiply, else add step_bytes
  int iterations = 20;
  double stable_pct = 0;              // --stable: 0 runs all -n iterations
  bool per_iteration_timing = false;  // -I 1: an event between every two ops (nccl backend)
  int graph_launches = 0;         // -G: 0 issues each op; N > 0 replays a graph of -n ops N times
  bool register_buffers = false;  // -R 1
  int warmup_iterations = 1;
  int checks = 1;  // -c N: the data check runs N times per size (0: none), as nccl-tests'
  DType dtype = DType::f32;
  ReduceOp reduce_op = ReduceOp::sum;  // -o: all_reduce, reduce_scatter (others ignore it)
  bool reduce_op_given = false;
  int agg_iters = 1;        // -m: ops per timed iteration, issued as one group
  int run_cycles = 1;       // -N: the whole sweep this many times
  int blocking = 0;         // -z: 0 queue ops, 1 wait+barrier after each (timed), 2 wait after
                            // each, 3 wait after each and barrier outside the timed span
  bool report_cputime = false;  // -C 1: the table's time column is the host's issue time
  std::optional<BackendKind> backend;  // unset: nccl when a GPU is visible, else mpi
  std::string out_path;                // --out or -J
  RankReduce report = RankReduce::avg;  // -a / --report: nccl-tests' default, the mean
  double timeout_seconds = 300;  // -T / --timeout; 0 disables the watchdog
  RunFlags run;  // --transport --ifname --emulate-nodes --fabric --emulated --dilate --compute
  std::uint64_t seed = 1;
  Skew skew;
  int root = 0;  // broadcast: the rank whose buffer every rank receives
  std::vector<std::string> benchmark_args;  // the --benchmark_* flags, verbatim
  bool progress = false;                    // progress on stderr even when it is not a terminal
};

// Returns nullopt when --help was asked for (and printed on the launcher's rank 0).
// Throws UsageError naming the problem otherwise.
std::optional<PerfOptions> parse_perf_cli(std::string_view op_name, int argc, char** argv);

// The requested sizes S in bytes, ascending; UsageError when the sweep is empty or endless.
std::vector<std::uint64_t> size_sweep(const PerfOptions& options);

}  // namespace collreplay
