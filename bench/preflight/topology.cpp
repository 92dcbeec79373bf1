// sysfs part of the topology (compiled everywhere); the GPU link matrix comes from
// nvml/gpu_links.cpp or nvml/no_nvml.cpp.
#include "bench/preflight/topology.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/preflight/gpu_links.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

// First line of a sysfs file, "" when it cannot be read (a down NIC's speed reads as EINVAL).
std::string read_line(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return line;
}

// Entries of a directory, sorted (directory order is arbitrary); empty when it is missing.
std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

// "4: ACTIVE" -> "ACTIVE".
std::string ib_state(const std::string& text) {
  const std::size_t colon = text.find(": ");
  return colon == std::string::npos ? text : text.substr(colon + 2);
}

std::vector<IbPort> read_ib_ports(const fs::path& sysfs) {
  std::vector<IbPort> ports;
  for (const fs::path& device : sorted_entries(sysfs / "class" / "infiniband"))
    for (const fs::path& port_dir : sorted_entries(device / "ports")) {
      IbPort port;
      port.device = device.filename().string();
      port.port = std::atoi(port_dir.filename().c_str());
      port.state = ib_state(read_line(port_dir / "state"));
      // "400 Gb/sec (4X NDR)": the number is the rate in Gb/s.
      port.rate_gbps = std::atof(read_line(port_dir / "rate").c_str());
      port.link_layer = read_line(port_dir / "link_layer");
      ports.push_back(port);
    }
  return ports;
}

std::vector<Nic> read_nics(const fs::path& sysfs) {
  std::vector<Nic> nics;
  for (const fs::path& dir : sorted_entries(sysfs / "class" / "net")) {
    Nic nic;
    nic.name = dir.filename().string();
    if (nic.name == "lo") continue;  // never the path between hosts
    const std::string speed = read_line(dir / "speed");
    // The kernel writes -1 (or nothing) when it does not know the speed.
    nic.speed_mbps = speed.empty() ? -1 : std::atol(speed.c_str());
    if (nic.speed_mbps <= 0) nic.speed_mbps = -1;
    nic.operstate = read_line(dir / "operstate");
    nics.push_back(nic);
  }
  return nics;
}

}  // namespace

Topology read_topology(const std::string& sysfs_root) {
  Topology topology;
  topology.gpu_links = read_gpu_links();
  topology.ib_ports = read_ib_ports(sysfs_root);
  topology.nics = read_nics(sysfs_root);
  return topology;
}

}  // namespace collreplay
