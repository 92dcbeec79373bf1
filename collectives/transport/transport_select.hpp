// Choosing the transport a run asks for (--transport auto|ib|socket|nvlink|shm, --ifname NAME),
// turning it into the libraries' own settings, and judging what was really used against it.
//
// The settings are the libraries' documented knobs, set in this process from the flags (never
// read from our own environment variables):
//   NCCL (set before the communicator starts, once the node count is known):
//     ib      NCCL_NET=IB, NCCL_IB_DISABLE=0
//     socket  NCCL_NET=Socket, NCCL_IB_DISABLE=1, NCCL_SOCKET_IFNAME=--ifname (when given)
//     nvlink  NCCL_P2P_DISABLE=0, NCCL_P2P_LEVEL=NVL, NCCL_SHM_DISABLE=1
//     shm     NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=0
//     On one node, ib and socket also set NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1, or NCCL
//     would never leave the node's own paths; across nodes the hops inside a node stay local, as
//     on a real cluster.
//   OpenMPI (OMPI_MCA_* set before MPI_Init, read by MPI_Init in each rank):
//     ib      pml ucx, UCX_TLS=rc,ud,self (pml_ucx_tls/devices any, so UCX is not refused)
//     socket  pml ob1, btl self,tcp, btl_tcp_if_include=--ifname (when given)
//     shm     pml ob1, btl self,vader (one node only)
//     nvlink  not available: MPI moves host buffers
//   auto changes nothing but --ifname (NCCL_SOCKET_IFNAME / btl_tcp_if_include).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/communicator.hpp"

namespace collreplay {

enum class TransportChoice { automatic, ib, socket, nvlink, shm };

struct TransportRequest {
  TransportChoice choice = TransportChoice::automatic;
  std::string ifname;  // socket interface; empty: the library's own choice

  std::string name() const;  // "auto", "ib", "socket", "nvlink", "shm"
};

// "auto" (or the older "any"), "ib", "socket", "nvlink", "shm"; UsageError otherwise.
TransportRequest parse_transport_request(std::string_view transport, std::string ifname);

// What this host (in this process's network namespace) offers.
struct HostNetwork {
  bool has_hca = false;                    // an InfiniBand/RoCE device in <sysfs>/class/infiniband
  std::vector<std::string> interfaces;     // network interfaces, by name
  std::vector<std::string> up_interfaces;  // those of them that are up
};
HostNetwork probe_host_network(const std::string& sysfs_root = "/sys");

// UsageError (one line) when the request cannot work here: ib without an HCA, an --ifname that
// does not exist, nvlink on the MPI backend, shm across nodes, --ifname with ib.
// `one_node`: every rank on one node (as far as the launcher says).
void check_transport_request(const TransportRequest& request, BackendKind backend,
                             const HostNetwork& host, bool one_node);

using Settings = std::vector<std::pair<std::string, std::string>>;

// The library settings for the request (pure). `one_node`: NCCL only, see above.
Settings nccl_transport_settings(const TransportRequest& request, bool one_node);
Settings mpi_transport_settings(const TransportRequest& request);

// setenv(name, value, overwrite) for each setting: the flag wins over inherited values.
void apply_settings(const Settings& settings);

// Whether the transport `verified` (Communicator::transport()) satisfies `asked` (a request's
// name). auto matches anything; one rank ("self") moves nothing, so it matches any ask; an
// inferred transport ("socket (inferred)") never satisfies an explicit ask. MPI's names map to
// the asked vocabulary: tcp and ucx:tcp are socket, ucx:sm/posix/cma are shm, ucx:rc/ud/dc are ib.
bool transport_matches(std::string_view asked, std::string_view verified);

// True when every rank of the job is on this node, according to the launcher's environment
// (OpenMPI, Slurm); true when launched without one.
bool launcher_says_one_node();

// Interfaces whose IPv4 address lies in `cidr` ("198.18.0.0/24"), or `cidr` itself when it is
// a name list entry rather than a range.
std::vector<std::string> interfaces_in(const std::string& cidr_or_name);

}  // namespace collreplay
