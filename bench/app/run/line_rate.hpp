// What an emulated fabric profile makes physically possible, so that a figure no such cluster can
// produce (a message that passed the host's shaping in a burst, then had its time divided by the
// dilation) is flagged in its record instead of drawn as a measurement.
//
// Every node has one link of the profile's node_gbit_s in each direction (all its NICs together).
// A collective is bounded by the bytes that must cross the busiest node's link, whatever the
// algorithm (data shared inside a node crosses once): with n ranks, r_k of them on node k, N nodes
// and nccl-tests' size S,
//   all_gather       node k must receive every other node's part:   max_k S (n - r_k) / n
//   reduce_scatter   node k must send its part of every other's:    max_k S (n - r_k) / n
//   all_reduce       every element crosses node links 2(N-1) times at least (one-way gossip:
//                    Harary and Schwenk; the bound of Patarasuk and Yuan's bandwidth-optimal
//                    all-reduce), spread over N links:  2 (N-1) / N x S
//   broadcast        each node but the root's receives S:           S
//   all_to_all(v)    node k's ranks' blocks for other nodes, and theirs for it (no combining):
//                    r_k (n - r_k) S / n for all_to_all (a block is S / n); from the count
//                    matrix for all_to_allv
//   send_recv        the ranks whose next (previous) rank is on another node send (receive) S
// The least time is those bytes at the link's rate, and busbw at that time is the most the profile
// allows. With one rank per node all_gather's bound is busbw <= the link rate; with r per node it
// is busbw <= rate x (n-1) / (n-r). These bound the op as a whole, which the slowest rank's time
// measures; a mean or the fastest of the ranks' times is bounded per rank (the bytes that must
// reach that rank's node during its own op), which is weaker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/app/rank_stats.hpp"
#include "bench/app/run/fabric_profiles.hpp"
#include "collectives/ops/collective_kind.hpp"
#include "collectives/values/peer_counts.hpp"

namespace collreplay {

struct NodeLinks {
  std::string fabric;
  double node_GBps = 0;           // per node and direction: the profile's node_gbit_s / 8
  std::vector<int> node_of_rank;  // by world rank
};

// The links an emulated run's profile promises; nullopt when nothing bounds its figures: a run
// that is not emulated, no profile or the unshaped one, every rank on one node. Nodes are the
// ranks' hosts, or with --emulate-nodes N the N blocks of consecutive ranks.
std::optional<NodeLinks> emulated_node_links(const std::optional<FabricProfile>& fabric,
                                             bool emulated, const std::vector<std::string>& hosts,
                                             int emulate_nodes);

// One collective as it crosses the nodes.
struct CollectiveTraffic {
  CollectiveKind kind = CollectiveKind::all_gather;
  std::uint64_t bytes = 0;                  // S, nccl-tests' size
  std::vector<int> members;                 // world ranks, in group-rank order
  int root = 0;                             // broadcast: the root's group rank
  const PeerCountMatrix* counts = nullptr;  // all_to_allv: elements [src][dst] by group rank
  std::size_t element_bytes = 1;
};

// The bytes that must cross one node's link in one direction, for the op as a whole (RankReduce
// max) or per rank and combined as the ranks' times are (avg, min, rank0). nullopt where there is no
// bound: send and recv alone, all_to_allv without its matrix, members all on one node.
std::optional<double> least_link_bytes(const CollectiveTraffic& op, const NodeLinks& links,
                                       RankReduce ranks_combined);

struct LineRateVerdict {
  double node_GBps = 0;       // the profile's rate per node and direction
  double max_busbw_GBps = 0;  // busbw at the least time the links allow
  bool above = false;         // the measured busbw is above it: not a possible figure
};

// The verdict on one measurement (`bus_bytes` moved in `seconds`, undilated); nullopt where
// least_link_bytes has no bound.
std::optional<LineRateVerdict> judge_line_rate(const CollectiveTraffic& op, const NodeLinks& links,
                                               RankReduce ranks_combined, double bus_bytes,
                                               double seconds);

// record["above_line_rate"], ["line_rate_GBps"], ["line_rate_busbw_GBps"].
void write_line_rate(nlohmann::json& record, const LineRateVerdict& verdict);

// The table's note when `above` of `judged` measurements are above the line rate; "" for none.
std::string line_rate_note(int above, int judged, const NodeLinks& links);

}  // namespace collreplay
