#include "bench/monitor/host_monitor.hpp"

#include <sstream>

#include "collectives/mpi/mpi_watched.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {

std::unique_ptr<MonitorSession> start_host_monitor(const MonitorOptions& options, MPI_Comm world,
                                                   bool sample_gpus, double timeout_s) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const bool wanted =
      options.interval_s > 0 || options.metrics_port != 0 || !options.metrics_file.empty();
  std::unique_ptr<MonitorSession> monitor;
  std::string problem;
  if (wanted && local_rank(world) == 0) {
    try {
      monitor = std::make_unique<MonitorSession>(options, host_name(), rank, 0, sample_gpus);
    } catch (const UsageError& e) {
      problem = e.what();
    }
  }
  throw_if_any_rank_has(world, problem, timeout_s);
  return monitor;
}

std::vector<nlohmann::json> finish_host_monitor(MonitorSession* monitor, MPI_Comm world,
                                                double timeout_s) {
  std::string mine;
  if (monitor)
    for (const nlohmann::json& record : monitor->finish()) mine += record.dump() + "\n";
  std::vector<nlohmann::json> records;
  for (const std::string& text : gather_strings_to_root(world, mine, timeout_s)) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

FabricBytes fabric_bytes_between(const CounterSnapshot& before, const CounterSnapshot& after) {
  FabricBytes total;
  for (const DeviceCounters& now : after.devices)
    for (const DeviceCounters& then : before.devices)
      if (now.device == then.device && now.tx_bytes >= then.tx_bytes &&
          now.rx_bytes >= then.rx_bytes) {
        total.tx += now.tx_bytes - then.tx_bytes;
        total.rx += now.rx_bytes - then.rx_bytes;
      }
  return total;
}

}  // namespace collreplay
