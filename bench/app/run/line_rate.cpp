#include "bench/app/run/line_rate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "collectives/transport/emulated_nodes.hpp"

namespace collreplay {
namespace {

// The op's members seen node by node.
struct NodeSpread {
  int n = 0;                    // ranks
  std::vector<int> node;        // by group rank
  std::map<int, int> per_node;  // node -> ranks of the group on it
  int r(int group_rank) const { return per_node.at(node[static_cast<std::size_t>(group_rank)]); }
};

NodeSpread place(const CollectiveTraffic& op, const NodeLinks& links) {
  NodeSpread p;
  p.n = static_cast<int>(op.members.size());
  for (int rank : op.members) {
    const int node = links.node_of_rank.at(static_cast<std::size_t>(rank));
    p.node.push_back(node);
    ++p.per_node[node];
  }
  return p;
}

// Elements from group rank `src` to `dst` of an all_to_allv.
double count(const CollectiveTraffic& op, int src, int dst) {
  return static_cast<double>(op.counts->at(src, dst));
}

// Bytes that must reach group rank i's node during rank i's own op (the per-rank bound).
double rank_bytes(const CollectiveTraffic& op, const NodeSpread& p, int i) {
  const double S = static_cast<double>(op.bytes), n = p.n;
  const double foreign = n - p.r(i);  // ranks of the group on other nodes
  auto elsewhere = [&](int j) {
    return p.node[static_cast<std::size_t>(j)] != p.node[static_cast<std::size_t>(i)];
  };
  switch (op.kind) {
    case CollectiveKind::all_gather: return S * foreign / n;
    case CollectiveKind::reduce_scatter: return foreign > 0 ? S / n : 0;
    case CollectiveKind::all_reduce: return foreign > 0 ? S : 0;
    case CollectiveKind::broadcast: return elsewhere(op.root) ? S : 0;
    case CollectiveKind::all_to_all: return foreign * S / n;
    case CollectiveKind::all_to_allv: {
      double bytes = 0;
      for (int j = 0; j < p.n; ++j)
        if (elsewhere(j)) bytes += count(op, j, i) * static_cast<double>(op.element_bytes);
      return bytes;
    }
    case CollectiveKind::send_recv: return elsewhere((i - 1 + p.n) % p.n) ? S : 0;
    default: return 0;
  }
}

// Bytes the busiest node's link must carry one way for the whole op.
double whole_op_bytes(const CollectiveTraffic& op, const NodeSpread& p) {
  const double S = static_cast<double>(op.bytes), n = p.n;
  const double nodes = static_cast<double>(p.per_node.size());
  std::map<int, double> out, in;  // per node, for the ops that move distinct data
  double busiest = 0;
  for (const auto& [node, r] : p.per_node) {
    switch (op.kind) {
      case CollectiveKind::all_gather:
      case CollectiveKind::reduce_scatter: busiest = std::max(busiest, S * (n - r) / n); break;
      case CollectiveKind::all_to_all: busiest = std::max(busiest, r * (n - r) * S / n); break;
      default: break;
    }
  }
  if (op.kind == CollectiveKind::all_reduce) return 2 * (nodes - 1) / nodes * S;
  if (op.kind == CollectiveKind::broadcast) return S;
  for (int i = 0; i < p.n; ++i)
    for (int j = 0; j < p.n; ++j) {
      const int from = p.node[static_cast<std::size_t>(i)],
                to = p.node[static_cast<std::size_t>(j)];
      if (from == to) continue;
      double bytes = 0;
      if (op.kind == CollectiveKind::all_to_allv)
        bytes = count(op, i, j) * static_cast<double>(op.element_bytes);
      else if (op.kind == CollectiveKind::send_recv && j == (i + 1) % p.n)
        bytes = S;
      out[from] += bytes;
      in[to] += bytes;
    }
  for (const auto& [node, bytes] : out) busiest = std::max(busiest, bytes);
  for (const auto& [node, bytes] : in) busiest = std::max(busiest, bytes);
  return busiest;
}

}  // namespace

std::optional<NodeLinks> emulated_node_links(const std::optional<FabricProfile>& fabric,
                                             bool emulated, const std::vector<std::string>& hosts,
                                             int emulate_nodes) {
  if (!emulated || !fabric || !(fabric->node_gbit_s > 0)) return std::nullopt;
  NodeLinks links;
  links.fabric = fabric->name;
  links.node_GBps = fabric->node_gbit_s / 8;
  const int world = static_cast<int>(hosts.size());
  std::map<std::string, int> host_node;
  for (int rank = 0; rank < world; ++rank) {
    const int node =
        emulate_nodes > 0
            ? emulated_node_of(rank, world, emulate_nodes).node
            : host_node.emplace(hosts[static_cast<std::size_t>(rank)], host_node.size())
                  .first->second;
    links.node_of_rank.push_back(node);
  }
  const std::set<int> nodes(links.node_of_rank.begin(), links.node_of_rank.end());
  if (nodes.size() < 2) return std::nullopt;
  return links;
}

std::optional<double> least_link_bytes(const CollectiveTraffic& op, const NodeLinks& links,
                                       RankReduce ranks_combined) {
  switch (op.kind) {
    case CollectiveKind::all_gather:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_reduce:
    case CollectiveKind::broadcast:
    case CollectiveKind::all_to_all:
    case CollectiveKind::send_recv: break;
    case CollectiveKind::all_to_allv:
      if (op.counts && op.counts->ranks == static_cast<int>(op.members.size())) break;
      return std::nullopt;
    default: return std::nullopt;
  }
  const NodeSpread p = place(op, links);
  if (p.per_node.size() < 2 || op.bytes == 0) return std::nullopt;
  if (ranks_combined == RankReduce::max) return whole_op_bytes(op, p);
  std::vector<double> per_rank;
  for (int i = 0; i < p.n; ++i) per_rank.push_back(rank_bytes(op, p, i));
  if (ranks_combined == RankReduce::min) return *std::min_element(per_rank.begin(), per_rank.end());
  if (ranks_combined == RankReduce::rank0) return per_rank.front();  // group rank 0's own
  return std::accumulate(per_rank.begin(), per_rank.end(), 0.0) / p.n;
}

std::optional<LineRateVerdict> judge_line_rate(const CollectiveTraffic& op, const NodeLinks& links,
                                               RankReduce ranks_combined, double bus_bytes,
                                               double seconds) {
  const std::optional<double> bytes = least_link_bytes(op, links, ranks_combined);
  if (!bytes || !(*bytes > 0) || !(bus_bytes > 0)) return std::nullopt;
  LineRateVerdict v;
  v.node_GBps = links.node_GBps;
  const double least_seconds = *bytes / (links.node_GBps * 1e9);
  v.max_busbw_GBps = bus_bytes / least_seconds / 1e9;
  v.above = seconds < least_seconds;
  return v;
}

void write_line_rate(nlohmann::json& record, const LineRateVerdict& v) {
  record["above_line_rate"] = v.above;
  record["line_rate_GBps"] = v.node_GBps;
  record["line_rate_busbw_GBps"] = v.max_busbw_GBps;
}

std::string line_rate_note(int above, int judged, const NodeLinks& links) {
  if (above == 0) return "";
  char text[320];
  std::snprintf(text, sizeof text,
                "note: %d of %d measurements are faster than %s's %.4g GB/s per node allows: the "
                "emulation's artifacts (a burst past the shaping, or host latency the dilation "
                "does not stretch), marked \"above_line_rate\": true in their records",
                above, judged, links.fabric.c_str(), links.node_GBps);
  return text;
}

}  // namespace collreplay
