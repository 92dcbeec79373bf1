// Where a replay rank sits: the node group it belongs to, its index among the node's ranks and
// the ranks per node, from the hosts of all ranks or from emulated nodes (--emulate-nodes).
#pragma once
#include <vector>

#include "bench/app/cross_rank.hpp"
#include "bench/flags/run_flags.hpp"

namespace collreplay {

struct RankPlacement {
  int node_color = 0;  // lowest world rank on this rank's host
  int local_rank = 0;  // index among the ranks of this host
  int ranks_per_node = 1;
};

// From every rank's identity (all_gather_identities), by host name.
RankPlacement place(const std::vector<RankIdentity>& ranks, int rank);

// Emulated nodes stand in for hosts: they decide the node group and the ranks per node of the
// schedule; the real placement still picks the GPU.
RankPlacement emulated_placement(const RunSetup& setup, int world, int rank, RankPlacement real);

}  // namespace collreplay
