// One monitor per host during a run: the first rank of each host samples its NICs, InfiniBand
// ports and GPUs (the others would read the same counters again) and serves the metrics.
//
//   std::unique_ptr<MonitorSession> monitor = start_host_monitor(flags, MPI_COMM_WORLD, gpus, t);
//   ... measure; if (monitor) monitor->board().set(...) ...
//   for (auto& r : finish_host_monitor(monitor.get(), MPI_COMM_WORLD, t)) results.add(r);
#pragma once
#include <mpi.h>
#include <cstdint>

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/monitor/monitor_session.hpp"

namespace collreplay {

// Collective. Null on ranks that are not their host's first, and when the options ask for
// nothing. A problem on any rank (busy port, bad sysfs root) is a UsageError on every rank.
std::unique_ptr<MonitorSession> start_host_monitor(const MonitorOptions& options, MPI_Comm world,
                                                   bool sample_gpus, double timeout_s);

// Collective. Stops the monitor and returns, on rank 0, every host's counter records.
std::vector<nlohmann::json> finish_host_monitor(MonitorSession* monitor, MPI_Comm world,
                                                double timeout_s);

// Bytes a host's NICs and InfiniBand ports sent and received between two snapshots.
struct FabricBytes {
  std::uint64_t tx = 0, rx = 0;
};
FabricBytes fabric_bytes_between(const CounterSnapshot& before, const CounterSnapshot& after);

}  // namespace collreplay
