#include "bench/monitor/counters.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace collreplay {
namespace {

namespace fs = std::filesystem;

std::optional<std::uint64_t> read_number(const fs::path& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

constexpr const char* kNetExtras[] = {"tx_packets", "rx_packets", "tx_dropped",
                                      "rx_dropped", "tx_errors",  "rx_errors"};
constexpr const char* kIbExtras[] = {"port_xmit_packets",   "port_rcv_packets", "symbol_error",
                                     "link_error_recovery", "link_downed",      "port_rcv_errors",
                                     "port_xmit_discards",  "port_xmit_wait"};

// /proc/net/dev: "  eth0: rx_bytes rx_packets rx_errs rx_drop ... tx_bytes tx_packets tx_errs
// tx_drop ...", 8 receive columns then 8 transmit ones.
bool read_proc_net_dev(const fs::path& path, CounterSnapshot& snapshot) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  for (int header = 0; header < 2 && std::getline(in, line); ++header) {
  }
  std::vector<DeviceCounters> found;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(0, name.find_first_not_of(' '));
    if (name == "lo") continue;
    std::istringstream fields(line.substr(colon + 1));
    std::uint64_t v[16] = {};
    for (std::uint64_t& x : v) fields >> x;
    if (!fields) continue;
    DeviceCounters d{"net", name, v[8], v[0], {}};
    d.other = {{"rx_packets", v[1]}, {"rx_errors", v[2]},  {"rx_dropped", v[3]},
               {"tx_packets", v[9]}, {"tx_errors", v[10]}, {"tx_dropped", v[11]}};
    found.push_back(std::move(d));
  }
  std::sort(found.begin(), found.end(),
            [](const DeviceCounters& a, const DeviceCounters& b) { return a.device < b.device; });
  for (DeviceCounters& d : found) snapshot.devices.push_back(std::move(d));
  return true;
}

void read_net(const fs::path& root, CounterSnapshot& snapshot) {
  // The real /sys lists the NICs of the network namespace that mounted it, not the caller's (an
  // emulated node is a namespace entered without remounting /sys): /proc/net/dev is the
  // caller's own, with the same counters.
  if (root == "/sys" && read_proc_net_dev("/proc/self/net/dev", snapshot)) return;
  for (const fs::path& nic : sorted_entries(root / "class/net")) {
    const std::string name = nic.filename().string();
    if (name == "lo") continue;
    const fs::path stats = nic / "statistics";
    const auto tx = read_number(stats / "tx_bytes");
    const auto rx = read_number(stats / "rx_bytes");
    if (!tx || !rx) {
      snapshot.problems.push_back("cannot read " + stats.string() + "/{tx,rx}_bytes");
      continue;
    }
    DeviceCounters d{"net", name, *tx, *rx, {}};
    for (const char* extra : kNetExtras)
      if (const auto v = read_number(stats / extra)) d.other[extra] = *v;
    snapshot.devices.push_back(std::move(d));
  }
}

void read_ib(const fs::path& root, CounterSnapshot& snapshot) {
  for (const fs::path& hca : sorted_entries(root / "class/infiniband"))
    for (const fs::path& port : sorted_entries(hca / "ports")) {
      const fs::path counters = port / "counters";
      // The 64-bit *_ext counters, where the driver has them, do not wrap at 16 GiB.
      auto tx = read_number(counters / "port_xmit_data_ext");
      auto rx = read_number(counters / "port_rcv_data_ext");
      if (!tx || !rx) {
        tx = read_number(counters / "port_xmit_data");
        rx = read_number(counters / "port_rcv_data");
      }
      const std::string name = hca.filename().string() + ":" + port.filename().string();
      if (!tx || !rx) {
        snapshot.problems.push_back("cannot read " + counters.string() + "/port_{xmit,rcv}_data");
        continue;
      }
      DeviceCounters d{"ib", name, *tx * 4, *rx * 4, {}};  // counted in 4-byte words
      for (const char* extra : kIbExtras)
        if (const auto v = read_number(counters / extra)) d.other[extra] = *v;
      snapshot.devices.push_back(std::move(d));
    }
}

}  // namespace

CounterSnapshot read_fabric_counters(const std::string& sysfs_root) {
  CounterSnapshot snapshot;
  read_net(sysfs_root, snapshot);
  read_ib(sysfs_root, snapshot);
  return snapshot;
}

}  // namespace collreplay
