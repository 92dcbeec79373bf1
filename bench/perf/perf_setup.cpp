#include "bench/perf/perf_setup.hpp"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {

// Host buffers for the largest size, per rank: used before MPI to turn absurd sizes into a
// usage error instead of an allocation failure halfway through a sweep.
void check_host_memory(const PerfOptions& options) {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const std::uint64_t ranks_here = local ? std::strtoull(local, nullptr, 10) : 1;
  const auto physical_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                              static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  // Two buffers of S each (send + recv, or the in-place buffer and its twin) per rank.
  const long double needed =
      2.0L * options.max_bytes * static_cast<long double>(ranks_here ? ranks_here : 1);
  if (needed > physical_bytes)
    throw UsageError(
        "-e " + format_bytes(options.max_bytes) + " needs " +
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

// Progress weighs a case by the bytes it moves plus a latency floor, so a size sweep's time left
// follows its large sizes.
double case_work(const PerfOptions& o, std::uint64_t bytes) {
  return static_cast<double>(o.iterations + o.warmup_iterations) *
         (static_cast<double>(bytes) + 65536.0);
}

// Names the op, its size and its group, so that a timeout message says all three.
std::string case_label(const OpSpec& op, std::uint64_t bytes, Placement p, int ranks) {
  return std::string(op.name()) + " of " + format_bytes(bytes) + " (" +
         std::string(placement_name(p)) + ") on the world group of " + std::to_string(ranks) +
         " ranks";
}

}  // namespace collreplay
