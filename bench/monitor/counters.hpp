// Fabric and GPU counters as a monitor samples them: cumulative byte counters of NICs
// (/sys/class/net/*/statistics) and InfiniBand ports (/sys/class/infiniband/*/ports/*/counters),
// and GPU gauges through NVML. The sysfs root is a parameter so tests read a fake tree.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace collreplay {

// One device's cumulative counters at one instant. Byte counters are in bytes (InfiniBand's
// port_xmit_data / port_rcv_data count 4-byte words and are converted on reading).
struct DeviceCounters {
  std::string source;  // "net" or "ib"
  std::string device;  // "eth0", "mlx5_0:1"
  std::uint64_t tx_bytes = 0, rx_bytes = 0;
  std::map<std::string, std::uint64_t> other;  // packets, drops, errors, link errors
};

struct CounterSnapshot {
  double t_s = 0;  // seconds since the monitor started
  std::vector<DeviceCounters> devices;
  std::vector<std::string> problems;  // counters that could not be read this time, once each
};

// Reads every NIC except loopback and every InfiniBand port under `sysfs_root` (e.g. "/sys").
// A device whose counter files vanish or cannot be read is reported in `problems` and skipped;
// a missing class directory is simply empty (a host without InfiniBand).
CounterSnapshot read_fabric_counters(const std::string& sysfs_root);

}  // namespace collreplay
