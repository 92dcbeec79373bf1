#include "bench/replay/rank_placement.hpp"

#include <algorithm>

#include "collectives/transport/emulated_nodes.hpp"

namespace collreplay {

RankPlacement place(const std::vector<RankIdentity>& ranks, int rank) {
  RankPlacement p;
  std::vector<int> ranks_on_host(ranks.size(), 0);  // indexed by the host's first rank
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
    int first = 0;
    while (ranks[first].host != ranks[r].host) ++first;
    p.ranks_per_node = std::max(p.ranks_per_node, ++ranks_on_host[first]);
    if (r == rank) {
      p.node_color = first;
      p.local_rank = ranks_on_host[first] - 1;
    }
  }
  return p;
}

RankPlacement emulated_placement(const RunSetup& setup, int world, int rank, RankPlacement real) {
  if (setup.emulate_nodes == 0) return real;
  const EmulatedNode node = emulated_node_of(rank, world, setup.emulate_nodes);
  RankPlacement p;
  p.node_color = node.node * node.ranks_per_node;
  p.local_rank = rank % node.ranks_per_node;
  p.ranks_per_node = node.ranks_per_node;
  return p;
}

}  // namespace collreplay
