// all_reduce: every rank ends with the element-wise reduction (sum unless the layout says
// otherwise) of everyone's `count` elements.
#include "collectives/values/check_values.hpp"
#include "collectives/device/device_pattern.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

class AllReduceSpec final : public OpSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::all_reduce; }
  std::string_view short_name() const override { return "ar"; }
  SizeBasis size_basis() const override { return SizeBasis::whole_buffer; }
  double bus_factor(int ranks) const override { return 2.0 * (ranks - 1.0) / ranks; }
  std::string_view reduction() const override { return "sum"; }
  std::string_view torch_name() const override { return "allreduce"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_AllReduce"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l;
    l.reduce_op = params.reduce_op;
    l.ranks = ranks;
    l.rank = rank;
    l.count = count;
    l.send_elements = l.recv_elements = l.in_place_elements = count;
    return l;
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    comm.all_reduce(send, recv, l.count, t, l.reduce_op);
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_reduced(t, l.reduce_op, seed, l.ranks, index);
  }
  std::optional<std::uint64_t> count_wrong_on_device(const OpLayout& l, const void* result,
                                                     DType t, std::uint64_t seed,
                                                     void* stream) const override {
    return device_count_wrong_all_reduce(result, l.count, t, seed, l.ranks, stream);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_all_reduce_spec() { return std::make_unique<AllReduceSpec>(); }

}  // namespace collreplay
