// What NCCL really uses: the transport read from its channel lines (or inferred from the
// environment and the hardware when its log cannot be read), the network interfaces and the
// algorithms it reported, all from the process's NCCL log (collectives/transport/nccl_log.hpp).
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/transport/nvlink.hpp"

namespace collreplay {
namespace {

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

}  // namespace

TransportEvidence NcclCommunicator::transport_evidence() const {
  if (size_ == 1) return {"self", true, "one rank: no connections"};
  NcclLogTap& tap = NcclLogTap::for_process();
  std::string why;
  if (tap.readable()) {
    std::vector<std::string> kinds = nccl_log_path_kinds(tap.read(log_spans_));
    std::string scope = "this communicator's calls";
    if (kinds.empty()) {
      // Lines written outside our calls (a proxy thread, an NCCL that connects asynchronously):
      // the whole process log still shows the paths, though it may mix communicators.
      kinds = nccl_log_path_kinds(tap.read({{0, tap.size_bytes()}}));
      scope = "the whole process log";
    }
    if (!kinds.empty()) {
      const int links = active_nvlink_count(bus_id());
      const std::string p2p = links > 0 ? "nvlink" : links == 0 ? "pcie" : "p2p";
      std::string seen;
      for (const std::string& k : kinds) seen += (seen.empty() ? "" : ",") + k;
      return {nccl_transport_name(kinds, p2p), true,
              "NCCL channel lines in " + scope + ": " + seen};
    }
    why =
        "NCCL has logged no channel connection for this communicator yet (it connects on first "
        "use)";
  } else {
    why = tap.why_unreadable();
  }
  return {inferred_transport(), false, why};
}

std::vector<std::string> NcclCommunicator::interfaces() const {
  const TransportEvidence evidence = transport_evidence();
  if (!evidence.observed || evidence.name == "self") return {};
  // Only a network transport uses interfaces (NCCL sets its network up even on one node), and
  // transport names are network kinds whenever any is present.
  const std::string first = evidence.name.substr(0, evidence.name.find('+'));
  if (first == "nvlink" || first == "pcie" || first == "p2p" || first == "shm") return {};
  NcclLogTap& tap = NcclLogTap::for_process();
  if (!tap.readable()) return {};
  return nccl_log_net_interfaces(tap.read({{0, tap.size_bytes()}}));
}

std::map<std::string, std::string> NcclCommunicator::algorithms() const {
  NcclLogTap& tap = NcclLogTap::for_process();
  if (!tap.readable()) return {};
  return nccl_log_algorithms(tap.read({{0, tap.size_bytes()}}));
}

std::string NcclCommunicator::transport() const {
  const TransportEvidence evidence = transport_evidence();
  return evidence.observed ? evidence.name : evidence.name + " (inferred)";
}

// What NCCL would pick by its documented rules, from the environment and the hardware.
std::string NcclCommunicator::inferred_transport() const {
  const bool local_paths_off = env_is("NCCL_P2P_DISABLE", "1") && env_is("NCCL_SHM_DISABLE", "1");
  if (hosts_ > 1 || local_paths_off) {
    if (const char* net = std::getenv("NCCL_NET"); net && *net) {
      const std::string name = net;
      if (name.rfind("IB", 0) == 0) return "ib";
      if (name == "Socket") return "socket";
    }
    std::error_code ec;
    const bool has_hca = std::filesystem::exists("/sys/class/infiniband", ec) &&
                         !std::filesystem::is_empty("/sys/class/infiniband", ec);
    return (env_is("NCCL_IB_DISABLE", "1") || !has_hca) ? "socket" : "ib";
  }
  if (env_is("NCCL_P2P_DISABLE", "1")) return "shm";
  const int links = active_nvlink_count(bus_id());
  return links > 0 ? "nvlink" : links == 0 ? "pcie" : "p2p";
}

}  // namespace collreplay
