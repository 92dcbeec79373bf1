// The emulated cluster this process runs on, if any (sweeps/emulate/cluster). Its nodes are
// network namespaces /run/netns/<prefix><i>, and `cluster up` registers each cluster as
// /run/collreplay-clusters/<prefix>.env, a link to its state file. A process runs on node i when
// its own network namespace (/proc/self/ns/net) is that node's, the test `ip netns identify`
// makes; so every program started on a node (by mpirun, srun or by hand) finds the fabric and
// dilation the cluster was shaped to, with no flag or environment variable to pass on.
//
//   if (auto cluster = find_emulated_cluster()) ... cluster->fabric, cluster->dilation
#pragma once
#include <optional>
#include <string>

namespace collreplay {

struct EmulatedCluster {
  std::string prefix;  // the nodes' namespace prefix ("crnode")
  std::string node;    // this process's node ("crnode1")
  int nodes = 0;
  std::string fabric;        // the profile its links are shaped to (sweeps/fabrics.tsv)
  double dilation = 1;       // the links run at the profile's bandwidth / dilation
  std::string fabrics_file;  // the profiles it was shaped from
  std::string state_file;    // where this was read (for messages)
};

// Where to look: the defaults are the cluster script's fixed places; tests give their own.
struct ClusterPlaces {
  std::string registry_dir = "/run/collreplay-clusters";
  std::string netns_dir = "/run/netns";
  std::string own_netns = "/proc/self/ns/net";
};

// A state file's text (KEY=VALUE lines, as `cluster up` writes them) read into a cluster, `node`
// left empty. UsageError naming `path` and the field when one it needs is missing or malformed.
EmulatedCluster parse_cluster_state(const std::string& text, const std::string& path);

// The registered cluster one of whose nodes is this process's network namespace; nullopt outside
// every cluster (and where the places cannot be read: no cluster is up, or not this machine's).
// UsageError when the registered state file of the cluster it runs on does not parse.
std::optional<EmulatedCluster> find_emulated_cluster(const ClusterPlaces& places = {});

}  // namespace collreplay
