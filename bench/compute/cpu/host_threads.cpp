#include "bench/compute/cpu/host_threads.hpp"

#include <sched.h>

#include <thread>

namespace collreplay {

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

std::string oversubscription_warning(int ranks_on_node, int compute_threads, int cores) {
  const long needed = static_cast<long>(ranks_on_node) * (compute_threads + 1);
  if (needed <= cores) return "";
  return "warning: " + std::to_string(ranks_on_node) + " ranks x (" +
         std::to_string(compute_threads) + " compute thread" + (compute_threads == 1 ? "" : "s") +
         " + 1 polling thread) = " + std::to_string(needed) + " threads on " +
         std::to_string(cores) + " core" + (cores == 1 ? "" : "s") +
         ": compute and communication will take turns, so overlap is understated (use fewer "
         "ranks per node or --compute-threads)";
}

}  // namespace collreplay
