// The MoE token all-to-all of one expert group, flat or hierarchical, as collective ops.
//
// Hierarchical (--a2a hierarchical): the expert group spans N nodes with L of its ranks on each
// (L = gpus_per_node / tp, member e on node e / L with local index e % L). Rows from node a to
// node b != a travel once between the nodes, through the ranks with local index b mod L:
//   1. gather (expert_node group): member (a, i) sends to (a, j) its rows for node a's member j
//      directly, and its rows for every other node b with b mod L == j;
//   2. rail (expert_rail group: same local index): (a, j) sends to (b, j), b mod L == j, all
//      rows node a has for node b;
//   3. scatter (expert_node group): (b, b mod L) hands each member k of node b the rows from
//      other nodes for k (its own share included, a local copy).
// Every row reaches its destination; the inter-node stage carries one aggregated message per
// pair of nodes instead of L x L.
#pragma once
#include <cstdint>
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

struct A2aStage {
  const char* name;  // "gather", "rail", "scatter"
  GroupKind group;
  std::vector<std::uint64_t> send_rows, recv_rows;  // per peer of `group`, in group order
};

// `rows[p][q]`: rows member p sends to member q; `me`: this rank's member index; `local`: L.
std::vector<A2aStage> hierarchical_a2a_stages(const std::vector<std::vector<std::uint64_t>>& rows,
                                              int me, int local);

// The flat all_to_all (when every count is equal and `fixed` is allowed) or all_to_allv of
// `send_rows` / `recv_rows` rows of `row_elements` elements.
CollectiveOp rows_all_to_all(const std::vector<std::uint64_t>& send_rows,
                             const std::vector<std::uint64_t>& recv_rows,
                             std::uint64_t row_elements, DType dtype, GroupKind group,
                             bool fixed_allowed);

}  // namespace collreplay
