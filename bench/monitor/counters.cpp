#include "bench/monitor/counters.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

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
constexpr const char* kIbExtras[] = {"port_xmit_packets",  "port_rcv_packets",
                                     "symbol_error",       "link_error_recovery",
                                     "link_downed",        "port_rcv_errors",
                                     "port_xmit_discards", "port_xmit_wait"};

void read_net(const fs::path& root, CounterSnapshot& snapshot) {
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
