#include "collectives/transport/transport_select.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/errors.hpp"

namespace collreplay {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}

// MPI's and NCCL's names in the vocabulary of --transport.
std::string canonical(std::string_view verified) {
  if (verified == "tcp") return "socket";
  if (verified.starts_with("ucx:")) {
    const std::string_view tls = verified.substr(4);
    if (tls.starts_with("tcp")) return "socket";
    if (tls.starts_with("sm") || tls.starts_with("posix") || tls.starts_with("cma") ||
        tls.starts_with("shm"))
      return "shm";
    if (tls.starts_with("rc") || tls.starts_with("ud") || tls.starts_with("dc") ||
        tls.starts_with("ib"))
      return "ib";
  }
  return std::string(verified);
}

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

}  // namespace

std::string TransportRequest::name() const {
  switch (choice) {
    case TransportChoice::automatic: return "auto";
    case TransportChoice::ib: return "ib";
    case TransportChoice::socket: return "socket";
    case TransportChoice::nvlink: return "nvlink";
    case TransportChoice::shm: return "shm";
  }
  return "auto";
}

TransportRequest parse_transport_request(std::string_view transport, std::string ifname) {
  TransportRequest request;
  request.ifname = std::move(ifname);
  if (transport == "auto" || transport == "any")
    request.choice = TransportChoice::automatic;
  else if (transport == "ib")
    request.choice = TransportChoice::ib;
  else if (transport == "socket")
    request.choice = TransportChoice::socket;
  else if (transport == "nvlink")
    request.choice = TransportChoice::nvlink;
  else if (transport == "shm")
    request.choice = TransportChoice::shm;
  else
    throw UsageError("unknown --transport '" + std::string(transport) +
                     "' (expected auto, ib, socket, nvlink or shm)");
  return request;
}

HostNetwork probe_host_network(const std::string& sysfs_root) {
  HostNetwork host;
  std::error_code ec;
  const std::filesystem::path hcas = std::filesystem::path(sysfs_root) / "class/infiniband";
  host.has_hca = std::filesystem::is_directory(hcas, ec) && !std::filesystem::is_empty(hcas, ec);
  // getifaddrs answers for this process's network namespace, which /sys/class/net does not when
  // a launcher entered the namespace without remounting sysfs (nsenter --net).
  std::set<std::string> names, up;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_name) continue;
      names.insert(a->ifa_name);
      if (a->ifa_flags & IFF_UP) up.insert(a->ifa_name);
    }
    freeifaddrs(list);
  }
  host.interfaces.assign(names.begin(), names.end());
  host.up_interfaces.assign(up.begin(), up.end());
  return host;
}

void check_transport_request(const TransportRequest& request, BackendKind backend,
                             const HostNetwork& host, bool one_node) {
  const std::string asked = "--transport " + request.name();
  if (request.choice == TransportChoice::ib) {
    if (!host.has_hca)
      throw UsageError(asked +
                       ": this host has no InfiniBand/RoCE device "
                       "(/sys/class/infiniband is empty); use --transport socket");
    if (!request.ifname.empty())
      throw UsageError("--ifname names a socket interface; it has no use with " + asked);
  }
  if (!request.ifname.empty()) {
    // Several names, as NCCL_SOCKET_IFNAME and btl_tcp_if_include take them ("eth0,eth1").
    std::string rest = request.ifname;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string name = rest.substr(0, comma);
      rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
      if (name.empty() || name.front() == '^') continue;  // NCCL's exclusion list
      if (name.find('/') != std::string::npos && !interfaces_in(name).empty()) continue;
      // NCCL takes a prefix ("eth" matches eth0) unless the name starts with '='.
      const bool exact = name.front() == '=';
      const std::string wanted = exact ? name.substr(1) : name;
      const bool found = std::any_of(
          host.interfaces.begin(), host.interfaces.end(),
          [&](const std::string& i) { return exact ? i == wanted : i.starts_with(wanted); });
      if (!found)
        throw UsageError("--ifname " + name + ": no such network interface on this host (it has " +
                         joined(host.interfaces) + ")");
    }
  }
  if (request.choice == TransportChoice::nvlink && backend == BackendKind::mpi)
    throw UsageError(asked + " needs --backend nccl (the MPI backend moves host buffers)");
  if (request.choice == TransportChoice::shm && !one_node)
    throw UsageError(asked + ": shared memory cannot connect ranks on different nodes");
}

Settings nccl_transport_settings(const TransportRequest& request, bool one_node) {
  Settings s;
  switch (request.choice) {
    case TransportChoice::automatic: break;
    case TransportChoice::ib: s = {{"NCCL_IB_DISABLE", "0"}}; break;
    case TransportChoice::socket: s = {{"NCCL_NET", "Socket"}, {"NCCL_IB_DISABLE", "1"}}; break;
    case TransportChoice::nvlink:
      s = {{"NCCL_P2P_DISABLE", "0"}, {"NCCL_P2P_LEVEL", "NVL"}, {"NCCL_SHM_DISABLE", "1"}};
      break;
    case TransportChoice::shm: s = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "0"}}; break;
  }
  const bool network =
      request.choice == TransportChoice::ib || request.choice == TransportChoice::socket;
  if (network && one_node) {
    s.emplace_back("NCCL_P2P_DISABLE", "1");
    s.emplace_back("NCCL_SHM_DISABLE", "1");
  }
  if (!request.ifname.empty()) s.emplace_back("NCCL_SOCKET_IFNAME", request.ifname);
  return s;
}

Settings mpi_transport_settings(const TransportRequest& request) {
  Settings s;
  switch (request.choice) {
    case TransportChoice::automatic:
    case TransportChoice::nvlink: break;
    case TransportChoice::ib:
      // Without these two, pml ucx refuses hosts whose devices it does not recognise.
      s = {{"OMPI_MCA_pml", "ucx"},
           {"OMPI_MCA_pml_ucx_tls", "any"},
           {"OMPI_MCA_pml_ucx_devices", "any"},
           {"UCX_TLS", "rc,ud,self"}};
      break;
    case TransportChoice::socket:
      s = {{"OMPI_MCA_pml", "ob1"}, {"OMPI_MCA_btl", "self,tcp"}};
      break;
    case TransportChoice::shm: s = {{"OMPI_MCA_pml", "ob1"}, {"OMPI_MCA_btl", "self,vader"}}; break;
  }
  if (!request.ifname.empty()) s.emplace_back("OMPI_MCA_btl_tcp_if_include", request.ifname);
  return s;
}

void apply_settings(const Settings& settings) {
  for (const auto& [name, value] : settings) setenv(name.c_str(), value.c_str(), 1);
}

bool transport_matches(std::string_view asked, std::string_view verified) {
  if (asked == "auto" || asked == "any") return true;
  if (verified == "self") return true;
  if (verified.ends_with("(inferred)")) return false;
  return canonical(verified) == asked;
}

bool launcher_says_one_node() {
  const int size = env_int("OMPI_COMM_WORLD_SIZE", env_int("SLURM_NTASKS", 1));
  const int local = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", env_int("SLURM_NTASKS_PER_NODE", size));
  const int nodes = env_int("SLURM_NNODES", 1);
  return local >= size && nodes <= 1;
}

std::vector<std::string> interfaces_in(const std::string& cidr_or_name) {
  const std::size_t slash = cidr_or_name.find('/');
  if (slash == std::string::npos) return {cidr_or_name};
  in_addr network{};
  if (inet_pton(AF_INET, cidr_or_name.substr(0, slash).c_str(), &network) != 1) return {};
  const int bits = std::atoi(cidr_or_name.c_str() + slash + 1);
  if (bits < 0 || bits > 32) return {};
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  std::set<std::string> names;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* ip = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if ((ntohl(ip->sin_addr.s_addr) & mask) == (ntohl(network.s_addr) & mask))
      names.insert(a->ifa_name);
  }
  freeifaddrs(list);
  return {names.begin(), names.end()};
}

}  // namespace collreplay
