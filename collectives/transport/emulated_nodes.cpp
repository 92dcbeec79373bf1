#include "collectives/transport/emulated_nodes.hpp"

#include "common/errors.hpp"

namespace collreplay {

EmulatedNode emulated_node_of(int rank, int world, int nodes) {
  if (nodes < 1)
    throw UsageError("--emulate-nodes " + std::to_string(nodes) + ": give at least 1 node");
  if (nodes > world || world % nodes != 0)
    throw UsageError("--emulate-nodes " + std::to_string(nodes) + " does not divide the " +
                     std::to_string(world) + " ranks into equal nodes");
  EmulatedNode e;
  e.ranks_per_node = world / nodes;
  e.node = rank / e.ranks_per_node;
  return e;
}

std::string emulated_host_id(std::string_view host, int node) {
  return std::string(host) + "/emulated-node-" + std::to_string(node);
}

}  // namespace collreplay
