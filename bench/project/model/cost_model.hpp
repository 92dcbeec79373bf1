// A collective cost model with NCCL's tuner structure: time = latency + bytes / bandwidth, per
// algorithm, over two tiers (intra-node: NVLink or shared memory; inter-node: the fabric). Every
// algorithm reduces to the same CostTerms (latency steps and bytes per tier), so fitting and
// prediction share one evaluation. Pure arithmetic: no MPI, no CUDA.
#pragma once
#include <string>
#include <string_view>

#include "collectives/ops/collective_kind.hpp"

namespace collreplay::project {

// One tier's parameters. Bandwidth is what one transfer stream of the tier sustains at large
// sizes: intra = per GPU (ring bus bandwidth inside a node), inter = per node, all NICs together.
// Small messages do not reach it: efficiency(m) = 1 / (1 + (half_bytes / m)^gamma) of the chunk a
// step moves; half_bytes = 0 means no curve (the tuner's plain alpha-beta form; gamma = 1 with
// half_bytes > 0 is the same form with extra latency).
struct TierParams {
  double alpha_us = 0;    // latency per step
  double bw_gbyte_s = 0;  // large-message bandwidth, GB/s (1e9 bytes/s)
  double half_bytes = 0;  // chunk size at which efficiency is one half
  double gamma = 1;       // steepness of the efficiency curve
};

double efficiency(const TierParams& tier, double chunk_bytes);

struct FabricModel {
  double base_us = 0;  // fixed cost of any collective on 2+ ranks (launch, protocol setup)
  TierParams intra;
  TierParams inter;
  int links = 1;            // NICs per node: a node with fewer GPUs than NICs in a group uses fewer
  bool pat_allowed = true;  // NCCL's PAT at one GPU per node (false: the fit saw no PAT points)
  bool tree_allowed = true;  // tree all-reduce across nodes
};

// A collective's cost class: the ops (collectives/ops, CollectiveKind) that cost alike share one
// (all_to_all and all_to_allv; send, recv and sendrecv as point_to_point: one hop, every rank at
// once). The ops themselves, their names and their facts, are the op specs'.
enum class CollKind {
  all_gather,
  reduce_scatter,
  all_reduce,
  all_to_all,
  broadcast,
  point_to_point
};
enum class Algo { ring, pat, tree, pairwise };

// The cost class of an op: its spec's cost_class(), as a CollKind.
CollKind cost_class(CollectiveKind kind);
// The cost class of an op named as the op registry names it ("all_gather", "alltoall",
// "sendrecv", ...). Throws UsageError on a name no op has.
CollKind coll_kind_from_name(std::string_view name);
std::string_view coll_kind_name(CollKind kind);
std::string_view algo_name(Algo algo);
// "ring", "PAT", "Tree", "RING_LL128" ... (NCCL's names, any case, protocol suffix ignored).
// Returns false when the name is not one of the modelled algorithms.
bool algo_from_name(std::string_view name, Algo& algo);

// Where a collective's group sits: ranks in the group and the nodes they span (equal ranks per
// node). Every rank runs the same schedule, so a group that holds g of a node's ranks runs beside
// the node's other groups of its kind (HSDP's replica groups, expert data-parallel groups): all
// node_ranks / g of them cross the node's NICs at once and share them.
struct GroupSpan {
  int ranks = 1;
  int nodes = 1;
  int node_ranks = 0;  // ranks per node running sibling groups at once; 0: this group's own g
  int ranks_per_node() const { return nodes > 0 ? ranks / nodes : 0; }
};

// The fraction of a node's NIC bandwidth one group gets: its g GPUs reach min(g, links) of the
// node's links (a GPU drives its own rail), and the node_ranks / g sibling groups crossing the
// same NICs at once split them (on a one-NIC node, 8 replica groups get an eighth each).
double inter_share(const GroupSpan& span, int links);

// What an algorithm costs, before parameters: latency steps per tier and bytes per tier.
// time = base + intra_steps * alpha_intra + inter_steps * alpha_inter
//        + max(intra_bytes / (B_intra * e(intra_chunk)), inter_bytes / (B_inter * share *
//        e(inter_chunk)))
struct CostTerms {
  double intra_steps = 0, inter_steps = 0;
  double intra_bytes = 0, inter_bytes = 0;  // through one GPU's intra link; through one node's NICs
  double intra_chunk = 0, inter_chunk = 0;  // bytes moved per step (sets the efficiency)
  double inter_share = 1;                   // fraction of the node's NICs the group can use
};

// nccl-tests' S: the whole buffer (all-gather output, reduce-scatter input, all-to-all send
// buffer, all-reduce buffer). Returns false when the algorithm does not apply to kind/span.
bool cost_terms(CollKind kind, Algo algo, double bytes, const GroupSpan& span, int links,
                CostTerms& terms);

double evaluate_us(const CostTerms& terms, const FabricModel& model);

struct Prediction {
  double time_us = 0;
  Algo algo = Algo::ring;
};

// The fastest applicable algorithm, as NCCL's tuner picks (all-to-all: pairwise only).
Prediction predict(CollKind kind, double bytes, const GroupSpan& span, const FabricModel& model);
// The given algorithm, or the tuner's pick when it does not apply.
Prediction predict_with(CollKind kind, Algo algo, double bytes, const GroupSpan& span,
                        const FabricModel& model);

}  // namespace collreplay::project
