// Uneven per-peer counts for all_to_allv, as expert-parallel MoE dispatch produces them. Every
// rank computes the same matrix from (skew, seed, ranks, count), so nothing is exchanged.
// Each rank sends exactly count x ranks elements in total (as all_to_all would), so the byte size
// S stays comparable; only how those elements spread over destinations changes:
//   uniform  count to every peer (the all_to_all pattern);
//   zipf:S   destination d gets weight 1/(1+popularity(d))^S, popularity a seeded permutation
//            shared by all senders (the same experts are hot everywhere);
//   hotspot:K  K seeded destinations share half of every rank's traffic, the others the rest.
//              (Not "hot:K": replay's --routing hot:K means K hot experts, a different thing.)
// Integer rounding uses largest remainders, so every row sums exactly to the total.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collreplay {

struct Skew {
  enum class Kind { uniform, zipf, hotspot } kind = Kind::uniform;
  double zipf_exponent = 0;  // zipf:S
  int hot_peers = 0;         // hotspot:K
};

// "uniform", "zipf:1.2", "hotspot:2"; UsageError otherwise (the old "hot:K" spelling names the
// new one).
Skew parse_skew(std::string_view text);
std::string skew_name(const Skew& skew);

// counts[src][dst] in elements.
struct PeerCountMatrix {
  int ranks = 0;
  std::vector<std::size_t> counts;  // row-major ranks x ranks
  std::size_t at(int src, int dst) const {
    return counts[static_cast<std::size_t>(src) * static_cast<std::size_t>(ranks) +
                  static_cast<std::size_t>(dst)];
  }
};

PeerCountMatrix make_peer_counts(const Skew& skew, std::uint64_t seed, int ranks,
                                 std::size_t count_per_peer);

}  // namespace collreplay
