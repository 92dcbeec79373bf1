// Point-to-point ops. send_recv is nccl-tests' sendrecv_perf: every rank sends `count` elements
// to the next rank and receives as many from the previous one, both in one p2p group; S is
// count x element and busbw = algbw (factor 1). send and recv are one side each, with the peer in
// the layout: a schedule pairs them across ranks, so they only run in a p2p group with their
// partners (the executor groups them); alone they would wait for ever, so the perf harness
// refuses them. No in-place form: the send and the receive of one rank run at once.
#include "collectives/values/check_values.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {
namespace {

class PointToPointSpec : public OpSpec {
 public:
  SizeBasis size_basis() const override { return SizeBasis::whole_buffer; }
  double bus_factor(int) const override { return 1.0; }
  std::string_view reduction() const override { return "none"; }
  std::string_view nccl_kernel() const override { return "ncclDevKernel_SendRecv"; }
  bool supports_in_place() const override { return false; }
  bool point_to_point() const override { return true; }
  std::string_view cost_class() const override { return "point_to_point"; }

 protected:
  OpLayout base_layout(std::size_t count, int ranks, int rank, const OpParams& params) const {
    OpLayout l;
    l.ranks = ranks;
    l.rank = rank;
    l.peer = params.peer;
    l.count = count;
    return l;
  }
};

class SendRecvSpec final : public PointToPointSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::send_recv; }
  std::string_view short_name() const override { return "sr"; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l = base_layout(count, ranks, rank, params);
    l.send_elements = l.recv_elements = count;
    return l;
  }
  std::vector<P2pCall> p2p_calls(const OpLayout& l, const void* send, void* recv,
                                 DType t) const override {
    return {P2pCall::send(send, l.count, t, (l.rank + 1) % l.ranks),
            P2pCall::recv(recv, l.count, t, (l.rank - 1 + l.ranks) % l.ranks)};
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void* recv,
             DType t) const override {
    comm.p2p_group(p2p_calls(l, send, recv, t));
  }
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_input(t, std::nullopt, seed, (l.rank - 1 + l.ranks) % l.ranks, l.ranks, index);
  }
};

class SendSpec final : public PointToPointSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::send; }
  bool needs_partner() const override { return true; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l = base_layout(count, ranks, rank, params);
    l.send_elements = count;
    return l;
  }
  std::vector<P2pCall> p2p_calls(const OpLayout& l, const void* send, void*,
                                 DType t) const override {
    return {P2pCall::send(send, l.count, t, l.peer)};
  }
  void issue(Communicator& comm, const OpLayout& l, const void* send, void*,
             DType t) const override {
    comm.send(send, l.count, t, l.peer);
  }
  double expected_value(const OpLayout&, DType, std::uint64_t, std::size_t) const override {
    return 0;  // nothing is received
  }
};

class RecvSpec final : public PointToPointSpec {
 public:
  CollectiveKind kind() const override { return CollectiveKind::recv; }
  bool needs_partner() const override { return true; }
  OpLayout layout(std::size_t count, int ranks, int rank, const OpParams& params) const override {
    OpLayout l = base_layout(count, ranks, rank, params);
    l.recv_elements = count;
    return l;
  }
  std::vector<P2pCall> p2p_calls(const OpLayout& l, const void*, void* recv,
                                 DType t) const override {
    return {P2pCall::recv(recv, l.count, t, l.peer)};
  }
  void issue(Communicator& comm, const OpLayout& l, const void*, void* recv,
             DType t) const override {
    comm.recv(recv, l.count, t, l.peer);
  }
  // The peer's seeded input, as its send spec filled it.
  double expected_value(const OpLayout& l, DType t, std::uint64_t seed,
                        std::size_t index) const override {
    return check_input(t, std::nullopt, seed, l.peer, l.ranks, index);
  }
};

}  // namespace

std::unique_ptr<OpSpec> make_send_recv_spec() { return std::make_unique<SendRecvSpec>(); }
std::unique_ptr<OpSpec> make_send_spec() { return std::make_unique<SendSpec>(); }
std::unique_ptr<OpSpec> make_recv_spec() { return std::make_unique<RecvSpec>(); }

}  // namespace collreplay
