// Preflight: is every rank fit to be measured? GPU health of every rank's host (NVML: clocks,
// temperature, power, throttle reasons), a short GEMM timed on every rank (ranks slower than the
// median by more than slow_threshold are named with host and device), and the topology of rank
// 0's host. Problems are warnings, or a PreflightError (exit 6) on every rank with `strict`.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/compute/compute_engine.hpp"

namespace collreplay {

struct PreflightOptions {
  double slow_threshold = 0.10;
  bool strict = false;
};

struct PreflightReport {
  std::vector<std::string> problems;  // on rank 0; empty elsewhere
  nlohmann::json json;                // on rank 0: health, gemm, topology, problems
};

// Collective over `world`. `device` names this rank's device for the report. Prints the report
// on rank 0 (stdout, '#'-prefixed lines, like the tables' headers).
PreflightReport run_preflight(MPI_Comm world, ComputeEngine& engine, const std::string& device,
                              const PreflightOptions& options);

// Pure: names the ranks whose GEMM took longer than the median by more than `threshold`.
std::vector<std::string> slow_rank_problems(const std::vector<double>& gemm_ms,
                                            const std::vector<std::string>& hosts,
                                            const std::vector<std::string>& devices,
                                            double threshold);

}  // namespace collreplay
