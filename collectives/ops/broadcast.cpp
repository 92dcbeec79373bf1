// broadcast: the root's `count` elements end on every rank. As nccl-tests' broadcast_perf: S is
// the whole buffer (count x element), busbw = algbw (factor 1: every rank receives S once).
// In-place passes one buffer (the root's input is its output).
#include <string>

#include "collectives/values/check_values.hpp"
#include "collectives/ops/op_spec.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

class BroadcastSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::broadcast; }
  std::string_view short_name() const override { return "bc"; }
  bool has_root() const override { return true; }
  SizeBasis size_basis() const override { return SizeBasis::whole_buffer; }
  double bus_factor(int) const override { return 1.0; }
  std::string_view reduction() const override { return "none"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_Broadcast"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    if (params.root < 0 || params.root >= ranks)
      throw UsageError("broadcast root " + std::to_string(params.root) + " is not one of the " +
                       std::to_string(ranks) + " ranks");
    OpLayout l;
    l.ranks = ranks;
    l.rank = rank;
    l.root = params.root;
    l.count = count;
    l.send_elements = l.recv_elements = l.in_place_elements = count;
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    comm.broadcast(send, recv, l.count, t, l.root);
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_input(t, std::nullopt, seed, l.root, l.ranks, index);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_broadcast_spec() { return std::make_unique<BroadcastSpec>(); }

}  // namespace collreplay
