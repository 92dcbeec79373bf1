// Emulated nodes on one GPU machine (--emulate-nodes N, NCCL backend): the world's ranks are cut
// into N consecutive groups and each group gets its own NCCL_HOSTID, so NCCL treats the groups
// as separate hosts: no P2P or SHM between them, its network transport instead (2 ranks with
// distinct host ids report 2 nodes and NET/Socket). Pure, so the mapping is unit-tested on host.
#pragma once
#include <string>
#include <string_view>

namespace collreplay {

struct EmulatedNode {
  int node = 0;            // 0 .. nodes-1
  int ranks_per_node = 1;  // world / nodes
};

// The emulated node of world rank `rank`: consecutive blocks of world / nodes ranks, the way
// mpirun fills real nodes by slot. UsageError when `nodes` is below 1, above `world`, or does not
// divide it.
EmulatedNode emulated_node_of(int rank, int world, int nodes);

// The NCCL_HOSTID of emulated node `node` on real host `host` ("gpu7/emulated-node-1"): distinct
// per (host, node), so emulation on several real hosts never merges their groups.
std::string emulated_host_id(std::string_view host, int node);

}  // namespace collreplay
