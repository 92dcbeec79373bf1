#include "bench/project/model/cost_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

double ceil_log2(int n) { return n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0.0; }

// Time for `bytes` through a tier, in µs (GB/s = 1e3 bytes/µs).
double transfer_us(double bytes, double bw_gbyte_s, double eff) {
  if (bytes <= 0) return 0;
  if (bw_gbyte_s <= 0 || eff <= 0) return std::numeric_limits<double>::infinity();
  return bytes / (bw_gbyte_s * 1e3 * eff);
}

}  // namespace

double efficiency(const TierParams& tier, double chunk_bytes) {
  if (tier.half_bytes <= 0 || chunk_bytes <= 0) return 1.0;
  return 1.0 / (1.0 + std::pow(tier.half_bytes / chunk_bytes, tier.gamma));
}

CollKind cost_class(CollectiveKind kind) {
  const std::string_view named = op_spec(kind).cost_class();
  for (CollKind c : {CollKind::all_gather, CollKind::reduce_scatter, CollKind::all_reduce,
                     CollKind::all_to_all, CollKind::broadcast, CollKind::point_to_point})
    if (coll_kind_name(c) == named) return c;
  throw RuntimeError("op " + std::string(collective_kind_name(kind)) + " has the cost class '" +
                     std::string(named) + "', which the cost model does not know");
}

CollKind coll_kind_from_name(std::string_view name) { return cost_class(find_op(name).kind()); }

std::string_view coll_kind_name(CollKind kind) {
  switch (kind) {
    case CollKind::all_gather: return "all_gather";
    case CollKind::reduce_scatter: return "reduce_scatter";
    case CollKind::all_reduce: return "all_reduce";
    case CollKind::all_to_all: return "all_to_all";
    case CollKind::broadcast: return "broadcast";
    case CollKind::point_to_point: return "point_to_point";
  }
  return "?";
}

std::string_view algo_name(Algo algo) {
  switch (algo) {
    case Algo::ring: return "ring";
    case Algo::pat: return "pat";
    case Algo::tree: return "tree";
    case Algo::pairwise: return "pairwise";
  }
  return "?";
}

bool algo_from_name(std::string_view name, Algo& algo) {
  std::string lower;
  for (char c : name) {
    if (c == '_' || c == '/' || c == ' ') break;  // RING_LL128, Ring/Simple: protocol ignored
    lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (Algo a : {Algo::ring, Algo::pat, Algo::tree, Algo::pairwise})
    if (lower == algo_name(a)) {
      algo = a;
      return true;
    }
  return false;
}

double inter_share(const GroupSpan& span, int links) {
  const int g = span.ranks_per_node();
  if (g < 1) return 1.0;
  const double rails = links > 0 ? static_cast<double>(std::min(g, links)) / links : 1.0;
  const int node_ranks = std::max(span.node_ranks, g);
  return std::min(rails, static_cast<double>(g) / node_ranks);
}

bool cost_terms(CollKind kind, Algo algo, double bytes, const GroupSpan& span, int links,
                CostTerms& t) {
  t = CostTerms{};
  const int n = span.ranks, N = span.nodes;
  if (n < 1 || N < 1 || n % N != 0) return false;
  const int g = n / N;
  t.inter_share = inter_share(span, links);
  if (n == 1) return algo == (kind == CollKind::all_to_all ? Algo::pairwise : Algo::ring);
  const double chunk = bytes / n;
  const bool ag_rs = kind == CollKind::all_gather || kind == CollKind::reduce_scatter;
  if (kind == CollKind::broadcast || kind == CollKind::point_to_point) {
    if (algo != Algo::ring) return false;
    // Broadcast: NCCL's ring broadcast, a chain from the root pipelined in slices: n-1 steps of
    // latency (N-1 of them across nodes), S through every link of the chain once. A send/recv
    // (or every rank's hop of a sendrecv ring): one step, S over the tier between the two ranks
    // (the span says whether the peer is on another node).
    const bool chain = kind == CollKind::broadcast;
    t.intra_steps = chain ? n - N : (N == 1 ? 1 : 0);
    t.inter_steps = chain ? N - 1 : (N > 1 ? 1 : 0);
    if (g > 1 && (chain || N == 1)) t.intra_bytes = bytes;
    if (N > 1) t.inter_bytes = bytes;
    t.intra_chunk = t.inter_chunk = bytes;
    return true;
  }
  switch (algo) {
    case Algo::ring: {
      if (!ag_rs && kind != CollKind::all_reduce) return false;
      // One pass (two for all-reduce: reduce-scatter then all-gather) of n-1 steps, N-1 of them
      // crossing a node boundary; every chunk but one passes every link of the ring, and the
      // node's NICs carry the rings that cross it (one channel per NIC).
      const double passes = kind == CollKind::all_reduce ? 2 : 1;
      t.intra_steps = passes * (n - N);
      t.inter_steps = passes * (N - 1);
      if (g > 1) t.intra_bytes = passes * (n - 1) * chunk;
      if (N > 1) t.inter_bytes = passes * (n - 1) * chunk;
      t.intra_chunk = t.inter_chunk = chunk;
      return true;
    }
    case Algo::pat: {
      // NCCL's PAT: one GPU per node, logarithmic steps, the ring's bytes.
      if (!ag_rs || g != 1 || N < 2) return false;
      t.inter_steps = ceil_log2(n);
      t.inter_bytes = (n - 1) * chunk;
      t.inter_chunk = chunk;
      return true;
    }
    case Algo::tree: {
      // Double binary tree across nodes, a chain inside each: reduce up, broadcast down. Each
      // node's NICs carry about the whole buffer each way, each GPU's link likewise.
      if (kind != CollKind::all_reduce || N < 2) return false;
      t.intra_steps = 2.0 * (g - 1);
      t.inter_steps = 2.0 * ceil_log2(N);
      if (g > 1) t.intra_bytes = bytes;
      t.inter_bytes = bytes;
      t.intra_chunk = bytes / g;
      t.inter_chunk = bytes / N;
      return true;
    }
    case Algo::pairwise: {
      // n-1 exchanges of S/n: g-1 peers inside the node, n-g outside, and the g ranks of a node
      // share its NICs for their cross-node rows.
      if (kind != CollKind::all_to_all) return false;
      t.intra_steps = g - 1;
      t.inter_steps = n - g;
      t.intra_bytes = (g - 1) * chunk;
      t.inter_bytes = static_cast<double>(g) * (n - g) * chunk;
      t.intra_chunk = t.inter_chunk = chunk;
      return true;
    }
  }
  return false;
}

double evaluate_us(const CostTerms& t, const FabricModel& m) {
  if (t.intra_steps + t.inter_steps == 0 && t.intra_bytes + t.inter_bytes == 0)
    return 0;  // one rank
  const double latency =
      m.base_us + t.intra_steps * m.intra.alpha_us + t.inter_steps * m.inter.alpha_us;
  const double intra =
      transfer_us(t.intra_bytes, m.intra.bw_gbyte_s, efficiency(m.intra, t.intra_chunk));
  const double inter = transfer_us(t.inter_bytes, m.inter.bw_gbyte_s * t.inter_share,
                                   efficiency(m.inter, t.inter_chunk));
  return latency + std::max(intra, inter);
}

Prediction predict(CollKind kind, double bytes, const GroupSpan& span, const FabricModel& m) {
  Prediction best{std::numeric_limits<double>::infinity(), Algo::ring};
  bool found = false;
  for (Algo a : {Algo::ring, Algo::pat, Algo::tree, Algo::pairwise}) {
    if ((a == Algo::pat && !m.pat_allowed) || (a == Algo::tree && !m.tree_allowed)) continue;
    CostTerms terms;
    if (!cost_terms(kind, a, bytes, span, m.links, terms)) continue;
    const double t = evaluate_us(terms, m);
    if (!found || t < best.time_us) best = {t, a};
    found = true;
  }
  if (!found)
    throw UsageError("a group of " + std::to_string(span.ranks) +
                     " ranks does not spread evenly over " + std::to_string(span.nodes) + " nodes");
  return best;
}

Prediction predict_with(CollKind kind, Algo algo, double bytes, const GroupSpan& span,
                        const FabricModel& m) {
  CostTerms terms;
  if (cost_terms(kind, algo, bytes, span, m.links, terms)) return {evaluate_us(terms, m), algo};
  return predict(kind, bytes, span, m);
}

}  // namespace collreplay::project
