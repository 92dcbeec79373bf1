// all_to_allv: like all_to_all, with per-peer counts from the agreed skew matrix
// (peer_counts.hpp). "count" is the average per-peer count: each rank sends count x ranks
// elements in total, so S matches all_to_all's (busbw: see bus_bytes). No in-place form: with
// uneven counts the send and receive layouts differ, which MPI's in-place all_to_allv cannot
// express.
#include <algorithm>

#include "collectives/values/check_values.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

// Elements a rank's counts move to or from the other ranks: all but its own block.
std::size_t cross_rank(const std::vector<std::size_t>& counts, int own) {
  std::size_t total = 0;
  for (std::size_t peer = 0; peer < counts.size(); ++peer)
    if (static_cast<int>(peer) != own) total += counts[peer];
  return total;
}

class AllToAllvSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::all_to_allv; }
  std::string_view short_name() const override { return "a2a"; }
  std::string_view cost_class() const override { return "all_to_all"; }
  SizeBasis size_basis() const override { return SizeBasis::per_rank; }
  double bus_factor(int ranks) const override { return (ranks - 1.0) / ranks; }
  std::string_view reduction() const override { return "none"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_SendRecv"; }
  bool supports_in_place() const override { return false; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l;
    l.ranks = ranks;
    l.rank = rank;
    l.count = count;
    l.peers = std::make_shared<const PeerCountMatrix>(
        make_peer_counts(params.skew, params.seed, ranks, count));
    for (int peer = 0; peer < ranks; ++peer) {
      l.send_displs.push_back(l.send_elements);
      l.send_counts.push_back(l.peers->at(rank, peer));
      l.send_elements += l.send_counts.back();
      l.recv_displs.push_back(l.recv_elements);
      l.recv_counts.push_back(l.peers->at(peer, rank));
      l.recv_elements += l.recv_counts.back();
    }
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    comm.all_to_allv(send, {l.send_counts, l.send_displs}, recv, {l.recv_counts, l.recv_displs}, t);
  }
  // Under skew the ranks move different amounts: busbw counts the busiest rank's traffic across
  // ranks, the larger of what it sends to and receives from the others (its own block stays).
  // Without the matrix (a replay's layout): this rank's, from its own counts.
  double bus_bytes(std::uint64_t bytes, const OpLayout& l, DType t) const override {
    std::size_t busiest = 0;
    if (l.peers) {
      for (int r = 0; r < l.ranks; ++r) {
        std::size_t sent = 0, received = 0;
        for (int peer = 0; peer < l.ranks; ++peer) {
          if (peer == r) continue;
          sent += l.peers->at(r, peer);
          received += l.peers->at(peer, r);
        }
        busiest = std::max({busiest, sent, received});
      }
    } else if (!l.send_counts.empty()) {
      busiest = std::max(cross_rank(l.send_counts, l.rank), cross_rank(l.recv_counts, l.rank));
    } else {
      return OpSpec::bus_bytes(bytes, l, t);
    }
    return static_cast<double>(busiest) * static_cast<double>(dtype_size_bytes(t));
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    // The source is the last peer whose block starts at or before `index`; within the source's
    // send buffer, its block for this rank starts after its blocks for lower ranks.
    const auto block = std::upper_bound(l.recv_displs.begin(), l.recv_displs.end(), index) - 1;
    int source = static_cast<int>(block - l.recv_displs.begin());
    while (l.recv_counts[static_cast<std::size_t>(source)] == 0) --source;  // skip empty blocks
    std::size_t source_offset = index - l.recv_displs[static_cast<std::size_t>(source)];
    for (int d = 0; d < l.rank; ++d) source_offset += l.peers->at(source, d);
    return check_input(t, std::nullopt, seed, source, l.ranks, source_offset);
  }
  std::optional<std::uint64_t> count_wrong_on_device(const OpLayout& l, const void* result,
                                                     DType t, std::uint64_t seed,
                                                     void* stream) const override {
    // Where each peer placed its block for this rank: after its blocks for lower ranks.
    std::vector<std::size_t> peer_send_displs(static_cast<std::size_t>(l.ranks), 0);
    for (int peer = 0; peer < l.ranks; ++peer)
      for (int lower = 0; lower < l.rank; ++lower)
        peer_send_displs[static_cast<std::size_t>(peer)] += l.peers->at(peer, lower);
    return device_count_wrong_all_to_allv(result, t, seed, l.ranks, l.recv_counts.data(),
                                          l.recv_displs.data(), peer_send_displs.data(), stream);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_all_to_allv_spec() { return std::make_unique<AllToAllvSpec>(); }

}  // namespace collreplay
