// What `replay` (without --dry-run) is asked to do beyond the workload: backend, passes,
// calibration, preflight, checks and output. Filled by add_replay_options (replay_cli.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/flags/run_flags.hpp"

namespace collreplay {

struct ReplayOptions {
  std::string backend;        // nccl | mpi; empty: nccl when a GPU is visible, else mpi
  std::string schedule_file;  // replay this schedule JSON (replay's --schedule) instead
  int steps = 0;              // timed steps per pass; 0: until stable
  int max_steps = 20;         // cap of the until-stable mode
  std::string stable = "2%";  // spread (max-min)/median that counts as stable
  int warmup = 2;             // untimed overlapped steps first
  double timeout_s = 300;     // watchdog per collective; 0: off
  double compute_scale = 1;   // stretch of every compute slice
  double target_mfu = 0;      // > 0: pick compute_scale so the compute-only step has this MFU
  std::optional<double> peak_tflops;  // per rank; default 989 on GPU, measured on host
  int compute_threads = 1;            // host BLAS threads
  std::string grouped_gemm = "auto";  // bench/compute/gemm/grouped_tiles.hpp (GroupedGemmPath)
  bool preflight = false;
  bool strict = false;           // preflight problems are errors (exit 6), not warnings
  double slow_threshold = 0.10;  // preflight: slower than the median GEMM by more than this
  std::string out;               // JSON Lines results file
  std::string trace_out;         // the measured step as a Chrome trace ("%d": one file per rank)
  bool check = false;            // verify every replayed collective's data once, untimed
  int graph_launches = 0;        // -G: the comm-only step also as one CUDA graph, launched N times
  bool progress = false;         // progress on stderr even when it is not a terminal
  RunFlags run;            // --transport --ifname --emulate-nodes --fabric --dilate --compute ...
  std::string nccl_algo;   // sets NCCL_ALGO before any communicator starts (validated)
  std::string nccl_proto;  // sets NCCL_PROTO likewise
  bool gpus_per_node_given = false;  // keep --gpus-per-node instead of the measured ranks per host
  std::vector<std::string> command_line;  // for run metadata; set by main

  // The stable spread as a fraction ("2%" or "2" -> 0.02); UsageError when malformed.
  double stable_fraction() const;
};

}  // namespace collreplay
