#include "workloads/plan/moe_routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

constexpr std::uint64_t kMaxSampledTokens = 4096;  // bounds dry-run time at any batch size

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t s = a ^ (b * 0xd1b54a32d192ed03ULL);
  return splitmix64(s);
}

// Integer weight per expert: popularity order is a seeded permutation of the experts.
std::vector<std::uint64_t> expert_weights(const RoutingInput& in) {
  std::vector<int> order(in.experts);
  std::iota(order.begin(), order.end(), 0);
  std::uint64_t state = mix(in.seed, 0x5eed0000ULL + static_cast<std::uint64_t>(in.layer));
  for (int i = in.experts - 1; i > 0; --i)
    std::swap(order[i], order[splitmix64(state) % static_cast<std::uint64_t>(i + 1)]);
  std::vector<std::uint64_t> w(in.experts, 1);
  for (int i = 0; i < in.experts; ++i) {
    const int e = order[i];
    switch (in.spec.kind) {
      case RoutingSpec::Kind::uniform: w[e] = 1; break;
      case RoutingSpec::Kind::hot: w[e] = i < in.spec.hot_k ? 8 : 1; break;
      case RoutingSpec::Kind::zipf:
        w[e] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(
                                              1048576.0 / std::pow(i + 1.0, in.spec.zipf_s))));
        break;
    }
  }
  return w;
}

std::vector<std::uint64_t> route_one_rank(const RoutingInput& in,
                                          const std::vector<std::uint64_t>& w, int source_rank) {
  std::uint64_t state = mix(mix(in.seed, static_cast<std::uint64_t>(in.layer) + 1),
                            static_cast<std::uint64_t>(source_rank) + 0x1000);
  const std::uint64_t sampled = std::min(in.tokens, kMaxSampledTokens);
  const std::uint64_t total_w = std::accumulate(w.begin(), w.end(), std::uint64_t{0});
  std::vector<std::uint64_t> counts(in.experts, 0);
  std::vector<char> chosen(in.experts);
  for (std::uint64_t t = 0; t < sampled; ++t) {
    std::fill(chosen.begin(), chosen.end(), 0);
    std::uint64_t remaining = total_w;
    for (int k = 0; k < in.top_k; ++k) {
      std::uint64_t r = splitmix64(state) % remaining;
      int e = 0;
      for (;; ++e) {
        if (chosen[e]) continue;
        if (r < w[e]) break;
        r -= w[e];
      }
      chosen[e] = 1;
      remaining -= w[e];
      ++counts[e];
    }
  }
  if (sampled == in.tokens) return counts;
  // Scale sampled counts to tokens * top_k rows: floors first, then the largest remainders.
  std::vector<std::uint64_t> rows(in.experts);
  std::vector<std::pair<std::uint64_t, int>> rem;
  std::uint64_t assigned = 0;
  for (int e = 0; e < in.experts; ++e) {
    const unsigned __int128 exact = static_cast<unsigned __int128>(counts[e]) * in.tokens;
    rows[e] = static_cast<std::uint64_t>(exact / sampled);
    rem.emplace_back(static_cast<std::uint64_t>(exact % sampled), e);
    assigned += rows[e];
  }
  std::stable_sort(rem.begin(), rem.end(), [](auto& a, auto& b) { return a.first > b.first; });
  const std::uint64_t target = in.tokens * static_cast<std::uint64_t>(in.top_k);
  for (std::size_t i = 0; assigned < target; ++i, ++assigned) ++rows[rem[i].second];
  return rows;
}

}  // namespace

RoutingSpec parse_routing(std::string_view text) {
  RoutingSpec s;
  const std::string t(text);
  auto number = [&](std::size_t from) {
    std::size_t used = 0;
    double v = -1;
    try {
      v = std::stod(t.substr(from), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || from + used != t.size())
      throw UsageError("bad --routing '" + t + "' (expected uniform, zipf:S or hot:K)");
    return v;
  };
  if (t == "uniform") return s;
  if (t.rfind("zipf:", 0) == 0) {
    s.kind = RoutingSpec::Kind::zipf;
    s.zipf_s = number(5);
    // S = 0 is uniform routing under another name, and S < 0 makes the coldest experts hottest.
    if (!(s.zipf_s > 0 && s.zipf_s <= 64))
      throw UsageError("bad --routing '" + t + "': S must be in (0, 64]");
    return s;
  }
  if (t.rfind("hot:", 0) == 0) {
    s.kind = RoutingSpec::Kind::hot;
    const double k = number(4);
    if (!(k >= 1 && k <= 1e6 && k == std::floor(k)))
      throw UsageError("bad --routing '" + t + "': K must be a whole number >= 1");
    s.hot_k = static_cast<int>(k);
    return s;
  }
  throw UsageError("unknown --routing '" + t + "' (expected uniform, zipf:S or hot:K)");
}

std::vector<std::vector<std::uint64_t>> route_rows(const RoutingInput& in,
                                                   const std::vector<int>& source_ranks) {
  checked_mul(in.tokens, static_cast<std::uint64_t>(in.top_k), "routed rows (tokens x top_k)");
  const std::vector<std::uint64_t> w = expert_weights(in);
  std::vector<std::vector<std::uint64_t>> rows;
  for (int r : source_ranks) rows.push_back(route_one_rank(in, w, r));
  return rows;
}

MoeLayerTraffic moe_layer_traffic(const RoutingInput& in, const MoeTrafficOptions& o) {
  const int first = o.rank / o.ep * o.ep, me = o.rank - first;
  std::vector<int> group(o.ep);
  std::iota(group.begin(), group.end(), first);
  auto rows = route_rows(in, group);
  MoeLayerTraffic t;
  if (o.capacity_factor > 0) {
    const double ideal = static_cast<double>(in.tokens) * in.top_k / in.experts;
    t.capacity_rows = static_cast<std::uint64_t>(std::ceil(o.capacity_factor * ideal));
    for (auto& src : rows)
      for (auto& r : src) r = o.pad_to_capacity ? t.capacity_rows : std::min(r, t.capacity_rows);
  }
  // Hottest over the group (ties: lower expert index); their rows never leave the source rank.
  if (o.replicate_hot > 0) {
    std::vector<std::pair<std::uint64_t, int>> load;
    for (int e = 0; e < in.experts; ++e) {
      std::uint64_t sum = 0;
      for (auto& src : rows) sum += src[e];
      load.emplace_back(sum, e);
    }
    std::stable_sort(load.begin(), load.end(), [](auto& a, auto& b) { return a.first > b.first; });
    for (int i = 0; i < std::min(o.replicate_hot, in.experts); ++i)
      t.replicated.push_back(load[i].second);
    std::sort(t.replicated.begin(), t.replicated.end());
  }
  auto replicated = [&](int e) {
    return std::find(t.replicated.begin(), t.replicated.end(), e) != t.replicated.end();
  };
  const int per_rank = in.experts / o.ep;
  t.rows_between.assign(o.ep, std::vector<std::uint64_t>(o.ep, 0));
  for (int p = 0; p < o.ep; ++p)
    for (int e = 0; e < in.experts; ++e)
      t.rows_between[p][replicated(e) ? p : e / per_rank] += rows[p][e];
  t.send_rows.assign(o.ep, 0);
  t.recv_rows.assign(o.ep, 0);
  t.expert_rows.assign(in.experts, 0);
  for (int e = 0; e < in.experts; ++e) {
    const int owner = e / per_rank;
    if (replicated(e)) {
      t.send_rows[me] += rows[me][e];
      t.recv_rows[me] += rows[me][e];
      t.expert_rows[e] = rows[me][e];
      continue;
    }
    t.send_rows[owner] += rows[me][e];
    if (owner == me)
      for (int p = 0; p < o.ep; ++p) {
        t.recv_rows[p] += rows[p][e];
        t.expert_rows[e] += rows[p][e];
      }
  }
  return t;
}

}  // namespace collreplay
