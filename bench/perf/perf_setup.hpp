// The perf harness's setup before anything is timed: the host-memory check of a size sweep,
// Google Benchmark's flags, and how cases are named and weighed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/perf/cli/perf_cli.hpp"
#include "collectives/ops/op_spec.hpp"
#include "common/dtype.hpp"

namespace collreplay {

// UsageError when the largest size's buffers cannot fit in this node's memory (checked before
// MPI, so absurd sizes are a usage error instead of an allocation failure halfway through).
void check_host_memory(const PerfOptions& options);

// Hands the --benchmark_* flags to Google Benchmark; UsageError for one it does not know.
void initialize_benchmark_library(const std::vector<std::string>& flags, bool is_rank0);

// Progress weighs a case by the bytes it moves plus a latency floor.
double case_work(const PerfOptions& options, std::uint64_t bytes);

// "all_gather of 16 MiB (in_place) on the world group of 2 ranks": timeouts name all three.
std::string case_label(const OpSpec& op, std::uint64_t bytes, Placement p, int ranks);

}  // namespace collreplay
