// What a benchmark needs to know about one collective, in one file per op
// (collectives/ops/<op>.cpp): its kind and name, the nccl-tests size rule (collective_kind.hpp),
// the bus-bandwidth factor, the reduction, the buffer layout out-of-place and in-place (NCCL's
// in-place conventions), how to issue it on a Communicator, and the exact expected output for
// the seeded fill of fill_pattern.hpp. algbw = S / t, busbw = bus_bytes / t (algbw_GBps and
// busbw_GBps below: the one rule every report uses).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/ops/collective_kind.hpp"
#include "collectives/reduce_op.hpp"
#include "collectives/values/check_values.hpp"
#include "collectives/values/peer_counts.hpp"
#include "common/dtype.hpp"

namespace collreplay {

enum class Placement { out_of_place, in_place };

// Bandwidths of one op that moved `bytes` (S) in `seconds`, in GB/s (0 when no time passed):
// algbw = S / t, and busbw = the op's bus bytes (OpSpec::bus_bytes) / t, as nccl-tests defines
// it. The one definition every report uses (perf records and table, replay records and table).
double algbw_GBps(double bytes, double seconds);
double busbw_GBps(double bus_bytes, double seconds);
std::string_view placement_name(Placement p);  // "out_of_place" | "in_place"

// Per-run knobs that change layouts or values: the fill seed, (all_to_allv) the skew,
// (broadcast) the root, (send, recv) the peer and (all_reduce, reduce_scatter) the reduction.
struct OpParams {
  std::uint64_t seed = 1;
  Skew skew;
  int root = 0;
  int peer = -1;
  ReduceOp reduce_op = ReduceOp::sum;
};

// One rank's buffers for one size, in elements. Out-of-place: a send and a recv buffer.
// In-place: one buffer of in_place_elements with the input at in_place_send_offset and the
// result at in_place_recv_offset.
struct OpLayout {
  int ranks = 1;
  int rank = 0;
  std::size_t count = 0;  // the Communicator's per-rank count ("count" column)
  int root = 0;           // broadcast: the rank whose input every rank receives
  int peer = -1;          // send, recv: the rank on the other side
  ReduceOp reduce_op = ReduceOp::sum;  // all_reduce, reduce_scatter: what they reduce with
  std::size_t send_elements = 0;
  std::size_t recv_elements = 0;
  std::size_t in_place_elements = 0;
  std::size_t in_place_send_offset = 0;
  std::size_t in_place_recv_offset = 0;
  // all_to_allv only: the agreed matrix and this rank's slices of it.
  std::shared_ptr<const PeerCountMatrix> peers;
  std::vector<std::size_t> send_counts, send_displs, recv_counts, recv_displs;
};

class OpSpec {
 public:
  virtual ~OpSpec() = default;
  virtual CollectiveKind kind() const = 0;
  // "all_gather", as in results: the op's line in op_list.hpp.
  std::string_view name() const { return collective_kind_name(kind()); }
  virtual SizeBasis size_basis() const = 0;
  // busbw / algbw as nccl-tests defines it: (n-1)/n for most ops, 2(n-1)/n for all_reduce (so 0
  // on one rank).
  virtual double bus_factor(int ranks) const = 0;
  // The bytes busbw counts for size S: S x bus_factor, which for even ops is what the busiest
  // rank moves across ranks. all_to_allv overrides it with its busiest rank under skew; from a
  // layout without the agreed matrix (a replay's, which holds only this rank's counts) it is
  // this rank's, and the caller takes the largest over the ranks.
  virtual double bus_bytes(std::uint64_t bytes, const OpLayout& layout, DType) const {
    return static_cast<double>(bytes) * bus_factor(layout.ranks);
  }
  // NCCL's reduction operator of the training step's call ("sum") or "none" for ops that only
  // move data (the profiler's kernel names).
  virtual std::string_view reduction() const = 0;
  // True for the ops that reduce (all_reduce, reduce_scatter): they take the layout's reduce_op.
  bool reduces() const { return reduction() != "none"; }
  // The reduction a layout's data check expects: its reduce_op on a reducing op, else none.
  std::optional<ReduceOp> check_op(const OpLayout& layout) const {
    return reduces() ? std::optional<ReduceOp>(layout.reduce_op) : std::nullopt;
  }
  // How torch's profiler names the call: the c10d method that issues it ("_allgather_base";
  // most ops by their own name).
  virtual std::string_view torch_name() const { return name(); }
  // NCCL's device kernel family as the profiler shows it ("ncclDevKernel_AllGather"; all-to-all
  // and point-to-point run as grouped sends and receives: "ncclDevKernel_SendRecv"). A reducing
  // op's kernel name goes on with "_Sum_<type>".
  virtual std::string_view nccl_kernel() const = 0;
  // The projection's cost class (bench/project/model/cost_model.hpp, CollKind by its name): ops
  // that cost alike share one (all_to_allv costs as "all_to_all"; send, recv and send_recv as
  // "point_to_point").
  virtual std::string_view cost_class() const { return name(); }
  // The op's part of a trace-derived op's name ("ag.fwd.c3"): a short form of its name.
  virtual std::string_view short_name() const { return name(); }
  // The count for a requested S (rounded down, as nccl-tests does) and S for a count.
  std::size_t count_for_bytes(std::uint64_t bytes, DType t, int ranks) const {
    return collreplay::count_for_bytes(size_basis(), bytes, dtype_size_bytes(t), ranks);
  }
  std::uint64_t bytes_for_count(std::size_t count, DType t, int ranks) const {
    return collreplay::bytes_for_count(size_basis(), count, dtype_size_bytes(t), ranks);
  }
  virtual OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const = 0;
  virtual bool supports_in_place() const { return true; }
  // One side of a point-to-point pair (send, recv): it completes only together with its partner
  // op on the peer, so it runs in a p2p group (Communicator::p2p_group), never alone.
  virtual bool needs_partner() const { return false; }
  // Issued as point-to-point calls in a p2p group (send, recv, send_recv), so a group of such ops
  // can be issued as one (p2p_calls).
  virtual bool point_to_point() const { return false; }
  // Sent from one rank (the layout's root) to every other: the root must be a rank of the group.
  virtual bool has_root() const { return false; }
  // A point-to-point op's calls for rank layout.rank of layout.ranks (RuntimeError for any other
  // op): send and recv bases as in issue().
  virtual std::vector<P2pCall> p2p_calls(const OpLayout& layout, const void* send, void* recv,
                                         DType t) const;
  // Issues the op (asynchronous). For in-place, pass the same buffer as send and recv base: the
  // spec applies the layout's offsets.
  virtual void issue(Communicator& comm, const OpLayout& layout, const void* send, void* recv,
                     DType t) const = 0;
  // Input element `index` of the send region of rank layout.rank (check_input of
  // collectives/values/check_values.hpp).
  virtual double input_value(const OpLayout& layout, DType t, std::uint64_t seed,
                             std::size_t index) const;
  // Expected element `index` of the recv region of rank layout.rank, exactly as `t` holds it.
  virtual double expected_value(const OpLayout& layout, DType t, std::uint64_t seed,
                                std::size_t index) const = 0;
  // Number of wrong elements of `result` (the result region, in device memory), counted by a
  // CUDA kernel on `stream` (collectives/device/device_pattern.hpp); nullopt for an op without
  // a device check (the caller checks it on the host). Only for a plain_fill_check of the
  // layout's dtype and reduction: callers fill and check on the host otherwise.
  virtual std::optional<std::uint64_t> count_wrong_on_device(const OpLayout&, const void* result,
                                                             DType, std::uint64_t seed,
                                                             void* stream) const;
};

// Host-side fill and check (the harness copies device buffers to and from the host).
// `buffer` is the whole buffer of the placement: the send buffer out-of-place, the single
// buffer in-place. Fills the input region from input_value() and poisons the rest
// (poison_value of collectives/values/check_values.hpp).
void fill_send_buffer(const OpSpec& op, const OpLayout& layout, Placement p, DType t,
                      std::uint64_t seed, void* host_buffer);
// The recv buffer out-of-place (poisoned), nothing in-place.
void poison_recv_buffer(const OpLayout& layout, DType t, void* host_buffer);
// Number of elements of the result region that differ from expected_value().
std::uint64_t count_wrong(const OpSpec& op, const OpLayout& layout, Placement p, DType t,
                          std::uint64_t seed, const void* host_buffer);

// Elements of the buffers a placement needs (send, recv); in-place uses one buffer.
std::size_t send_buffer_elements(const OpLayout& layout, Placement p);
std::size_t recv_buffer_elements(const OpLayout& layout, Placement p);

// Constructors of the specs, make_<op>_spec() for every line of op_list.hpp, each defined in
// collectives/ops/<op>.cpp (the registry owns the instances).
#define COLLREPLAY_DECLARE_MAKE_SPEC(op) std::unique_ptr<OpSpec> make_##op##_spec();
COLLREPLAY_FOR_EACH_OP(COLLREPLAY_DECLARE_MAKE_SPEC)
#undef COLLREPLAY_DECLARE_MAKE_SPEC

}  // namespace collreplay
