// Deterministic MoE routing: how many rows (token, chosen expert) each rank sends to each expert,
// and from that the per-peer dispatch sizes of one rank. Integer-only arithmetic on a splitmix64
// stream, so every rank (and every machine) derives the same matrix from the same seed.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace collreplay {

struct RoutingSpec {
  enum class Kind { uniform, zipf, hot } kind = Kind::uniform;
  double zipf_s = 0;  // zipf:S: the i-th most popular expert has weight 1/(i+1)^S
  int hot_k = 0;      // hot:K: K experts each 8x as likely per pick as any other
};

// "uniform", "zipf:S" (S >= 0), "hot:K" (1 <= K). Throws UsageError.
RoutingSpec parse_routing(std::string_view text);

struct RoutingInput {
  RoutingSpec spec;
  std::uint64_t seed = 1;
  int layer = 0;
  int experts = 8;
  int top_k = 2;
  std::uint64_t tokens = 0;  // tokens per rank per micro-batch
};

// rows[i][e]: rows source rank `source_ranks[i]` sends to expert e. Every token picks top_k
// distinct experts by weight (sampled without replacement); expert popularity order is a seeded
// permutation per layer, the same on every rank. Above 4096 tokens, 4096 tokens are sampled and
// the counts scaled by largest remainder. Rows are conserved: each source sends tokens * top_k.
std::vector<std::vector<std::uint64_t>> route_rows(const RoutingInput& in,
                                                   const std::vector<int>& source_ranks);

// One rank's view of one MoE layer after capacity and replication.
struct MoeLayerTraffic {
  std::vector<std::uint64_t> send_rows;  // rows to each peer of the expert group (self included)
  std::vector<std::uint64_t> recv_rows;  // rows from each peer
  std::vector<std::uint64_t>
      expert_rows;              // rows this rank runs through expert e (0 if it does not)
  std::vector<int> replicated;  // experts held by every rank
  // rows_between[p][q]: rows group member p sends to member q (every member's view; the
  // hierarchical all-to-all stages are derived from it).
  std::vector<std::vector<std::uint64_t>> rows_between;
  std::uint64_t capacity_rows = 0;  // per expert per source rank; 0 when unlimited
};

struct MoeTrafficOptions {
  int ep = 1;    // expert group: ep consecutive ranks
  int rank = 0;  // rank in the ep-consecutive layout (global rank / tp)
  double capacity_factor =
      0;  // > 0: at most ceil(cf * tokens * top_k / experts) rows per expert per source
  bool pad_to_capacity = false;  // every expert gets exactly the capacity from every source
  int replicate_hot = 0;         // the K experts with most rows over the group are on every rank
};

MoeLayerTraffic moe_layer_traffic(const RoutingInput& in, const MoeTrafficOptions& options);

}  // namespace collreplay
