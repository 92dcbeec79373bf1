// all_gather: every rank contributes `count` elements; everyone receives all ranks' slices,
// rank-major. In-place (NCCL): the input is this rank's slice of the output buffer.
#include "collectives/values/check_values.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

class AllGatherSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::all_gather; }
  std::string_view short_name() const override { return "ag"; }
  SizeBasis size_basis() const override { return SizeBasis::per_rank; }
  double bus_factor(int ranks) const override { return (ranks - 1.0) / ranks; }
  std::string_view reduction() const override { return "none"; }
  std::string_view torch_name() const override { return "_allgather_base"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_AllGather"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams&) const override {
    OpLayout l;
    l.ranks = ranks;
    l.rank = rank;
    l.count = count;
    l.send_elements = count;
    l.recv_elements = count * static_cast<std::size_t>(ranks);
    l.in_place_elements = l.recv_elements;
    l.in_place_send_offset = count * static_cast<std::size_t>(rank);
    l.in_place_recv_offset = 0;
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    if (send == recv)
      send = static_cast<const char*>(recv) + l.in_place_send_offset * dtype_size_bytes(t);
    comm.all_gather(send, recv, l.count, t);
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_input(t, std::nullopt, seed, static_cast<int>(index / l.count), l.ranks,
                       index % l.count);
  }
  std::optional<std::uint64_t> count_wrong_on_device(const OpLayout& l, const void* result,
                                                     DType t, std::uint64_t seed,
                                                     void* stream) const override {
    return device_count_wrong_all_gather(result, l.count, t, seed, l.ranks, stream);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_all_gather_spec() { return std::make_unique<AllGatherSpec>(); }

}  // namespace collreplay
