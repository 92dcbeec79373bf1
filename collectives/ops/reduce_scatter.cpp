// reduce_scatter: every rank contributes count x ranks elements; rank r receives the reduction
// (sum unless the layout says otherwise) of everyone's r-th slice. In-place (NCCL): the result
// lands in this rank's slice of the input.
#include "collectives/values/check_values.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

class ReduceScatterSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::reduce_scatter; }
  std::string_view short_name() const override { return "rs"; }
  SizeBasis size_basis() const override { return SizeBasis::per_rank; }
  double bus_factor(int ranks) const override { return (ranks - 1.0) / ranks; }
  std::string_view reduction() const override { return "sum"; }
  std::string_view torch_name() const override { return "_reduce_scatter_base"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_ReduceScatter"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l;
    l.reduce_op = params.reduce_op;
    l.ranks = ranks;
    l.rank = rank;
    l.count = count;
    l.send_elements = count * static_cast<std::size_t>(ranks);
    l.recv_elements = count;
    l.in_place_elements = l.send_elements;
    l.in_place_send_offset = 0;
    l.in_place_recv_offset = count * static_cast<std::size_t>(rank);
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    if (send == recv)
      recv = static_cast<char*>(recv) + l.in_place_recv_offset * dtype_size_bytes(t);
    comm.reduce_scatter(send, recv, l.count, t, l.reduce_op);
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_reduced(t, l.reduce_op, seed, l.ranks,
                         l.count * static_cast<std::size_t>(l.rank) + index);
  }
  std::optional<std::uint64_t> count_wrong_on_device(const OpLayout& l, const void* result,
                                                     DType t, std::uint64_t seed,
                                                     void* stream) const override {
    return device_count_wrong_reduce_scatter(result, l.count, t, seed, l.rank, l.ranks, stream);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_reduce_scatter_spec() { return std::make_unique<ReduceScatterSpec>(); }

}  // namespace collreplay
