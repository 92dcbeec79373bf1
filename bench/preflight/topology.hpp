// What connects this host's GPUs and this host to others: read from NVML (GPU links) and sysfs
// (InfiniBand HCAs, NICs), for preflight and run metadata.
#pragma once
#include <string>
#include <vector>

namespace collreplay {

struct IbPort {
  std::string device;  // mlx5_0
  int port = 1;
  std::string state;  // "ACTIVE"
  double rate_gbps = 0;
  std::string link_layer;  // InfiniBand | Ethernet
};

struct Nic {
  std::string name;      // eth0
  long speed_mbps = -1;  // -1 when the kernel does not say
  std::string operstate;
};

struct Topology {
  // gpu_links[i][j]: "NV18" (NVLink, 18 links), "PCIe", "SYS", "X" on the diagonal; empty when
  // NVML is unavailable.
  std::vector<std::vector<std::string>> gpu_links;
  std::vector<IbPort> ib_ports;
  std::vector<Nic> nics;
};

// sysfs_root lets tests point at a fixture tree instead of /sys.
Topology read_topology(const std::string& sysfs_root = "/sys");

}  // namespace collreplay
