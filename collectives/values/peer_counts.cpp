#include "collectives/values/peer_counts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "collectives/values/fill_pattern.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

// A seeded permutation of 0..n-1 (Fisher-Yates driven by mix64, identical on every rank).
std::vector<int> seeded_permutation(int n, std::uint64_t seed) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(mix64(seed + 0x51ed27ULL * static_cast<std::uint64_t>(i)) %
                                    static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

std::vector<double> destination_weights(const Skew& skew, std::uint64_t seed, int ranks) {
  std::vector<double> weights(static_cast<std::size_t>(ranks), 1.0);
  const std::vector<int> popularity = seeded_permutation(ranks, seed);
  if (skew.kind == Skew::Kind::zipf) {
    for (int d = 0; d < ranks; ++d)
      weights[static_cast<std::size_t>(d)] =
          1.0 / std::pow(1.0 + popularity[static_cast<std::size_t>(d)], skew.zipf_exponent);
  } else if (skew.kind == Skew::Kind::hotspot && skew.hot_peers < ranks) {
    const int hot = skew.hot_peers, cold = ranks - hot;
    for (int d = 0; d < ranks; ++d)
      weights[static_cast<std::size_t>(d)] =
          popularity[static_cast<std::size_t>(d)] < hot ? 0.5 / hot : 0.5 / cold;
  }
  return weights;
}

// Splits `total` into integers proportional to `weights` (largest remainder; ties to the lower
// index after rotating by `rotation`, so rounding leftovers do not always land on rank 0).
std::vector<std::size_t> apportion(std::size_t total, const std::vector<double>& weights,
                                   int rotation) {
  const double weight_sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  const std::size_t n = weights.size();
  std::vector<std::size_t> shares(n);
  std::vector<std::pair<double, std::size_t>> remainders(n);
  std::size_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double quota = static_cast<double>(total) * weights[i] / weight_sum;
    shares[i] = std::min(static_cast<std::size_t>(std::floor(quota)), total - given);
    given += shares[i];
    remainders[i] = {quota - static_cast<double>(shares[i]),
                     (i + n - static_cast<std::size_t>(rotation) % n) % n};
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (remainders[a].first != remainders[b].first)
      return remainders[a].first > remainders[b].first;
    return remainders[a].second < remainders[b].second;
  });
  for (std::size_t k = 0; given < total; k = (k + 1) % n, ++given) ++shares[order[k]];
  return shares;
}

}  // namespace

Skew parse_skew(std::string_view text) {
  Skew skew;
  auto bad = [&](const char* why) {
    return UsageError("--skew '" + std::string(text) + "' " + why +
                      " (expected uniform, zipf:S with S > 0, or hotspot:K with K >= 1)");
  };
  if (text == "uniform") return skew;
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw bad("is not a skew");
  const std::string kind(text.substr(0, colon)), value(text.substr(colon + 1));
  char* end = nullptr;
  if (kind == "zipf") {
    skew.kind = Skew::Kind::zipf;
    skew.zipf_exponent = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(skew.zipf_exponent > 0) || skew.zipf_exponent > 100)
      throw bad("has a bad exponent");
  } else if (kind == "hot") {
    throw UsageError("--skew '" + std::string(text) + "': write hotspot:" + value +
                     " (hot:K is replay's --routing spelling for K hot experts)");
  } else if (kind == "hotspot") {
    skew.kind = Skew::Kind::hotspot;
    const long k = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || k < 1 || k > 1'000'000) throw bad("has a bad K");
    skew.hot_peers = static_cast<int>(k);
  } else {
    throw bad("is not a skew");
  }
  return skew;
}

std::string skew_name(const Skew& skew) {
  switch (skew.kind) {
    case Skew::Kind::uniform: return "uniform";
    case Skew::Kind::zipf: {
      char text[48];
      std::snprintf(text, sizeof text, "zipf:%g", skew.zipf_exponent);
      return text;
    }
    case Skew::Kind::hotspot: return "hotspot:" + std::to_string(skew.hot_peers);
  }
  return "?";
}

PeerCountMatrix make_peer_counts(const Skew& skew, std::uint64_t seed, int ranks,
                                 std::size_t count_per_peer) {
  PeerCountMatrix matrix;
  matrix.ranks = ranks;
  matrix.counts.reserve(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks));
  const std::vector<double> weights = destination_weights(skew, seed, ranks);
  const std::size_t row_total = count_per_peer * static_cast<std::size_t>(ranks);
  for (int src = 0; src < ranks; ++src) {
    const std::vector<std::size_t> row = apportion(row_total, weights, src);
    matrix.counts.insert(matrix.counts.end(), row.begin(), row.end());
  }
  return matrix;
}

}  // namespace collreplay
