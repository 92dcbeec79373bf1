// all_to_all: block p of rank r's input (count elements) goes to rank p, landing in block r.
// In-place: one buffer serves as input and output.
#include "collectives/values/check_values.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

class AllToAllSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::all_to_all; }
  std::string_view short_name() const override { return "a2a"; }
  SizeBasis size_basis() const override { return SizeBasis::per_rank; }
  double bus_factor(int ranks) const override { return (ranks - 1.0) / ranks; }
  std::string_view reduction() const override { return "none"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_SendRecv"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams&) const override {
    OpLayout l;
    l.ranks = ranks;
    l.rank = rank;
    l.count = count;
    l.send_elements = l.recv_elements = l.in_place_elements =
        count * static_cast<std::size_t>(ranks);
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    comm.all_to_all(send, recv, l.count, t);
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    const auto source = static_cast<int>(index / l.count);
    return check_input(t, std::nullopt, seed, source, l.ranks,
                       l.count * static_cast<std::size_t>(l.rank) + index % l.count);
  }
  std::optional<std::uint64_t> count_wrong_on_device(const OpLayout& l, const void* result,
                                                     DType t, std::uint64_t seed,
                                                     void* stream) const override {
    return device_count_wrong_all_to_all(result, l.count, t, seed, l.rank, l.ranks, stream);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_all_to_all_spec() { return std::make_unique<AllToAllSpec>(); }

}  // namespace collreplay
