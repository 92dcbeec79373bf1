#include "bench/executor/collective_plan.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "collectives/ops/op_registry.hpp"
#include "common/errors.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

[[noreturn]] void bad_op(const ScheduleOp& op, const std::string& why) {
  throw UsageError("schedule op '" + op.name + "': " + why);
}

void zero_fill(Communicator& comm, void* buffer, std::uint64_t bytes) {
  constexpr std::uint64_t kChunkBytes = 64ull << 20;
  const std::vector<char> zeros(std::min(bytes, kChunkBytes), 0);
  for (std::uint64_t offset = 0; offset < bytes; offset += kChunkBytes)
    comm.copy_from_host(static_cast<char*>(buffer) + offset, zeros.data(),
                        std::min(kChunkBytes, bytes - offset));
}

std::vector<std::size_t> to_sizes(const std::vector<std::uint64_t>& counts) {
  return {counts.begin(), counts.end()};
}

std::vector<std::size_t> displacements(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
  return displs;
}

}  // namespace

PreparedCollective prepare_collective(const ScheduleOp& op, int op_index, int group_size) {
  const CollectiveOp& c = op.collective();
  PreparedCollective call;
  call.op = op_index;
  call.kind = c.kind;
  call.dtype = c.dtype;
  call.group = c.group;
  call.key = group_key(c);
  call.spec = &op_spec(c.kind);
  const std::uint64_t element = dtype_size_bytes(c.dtype);
  const std::uint64_t n = static_cast<std::uint64_t>(group_size);
  OpLayout& l = call.layout;

  if (c.kind == CollectiveKind::all_to_allv) {
    if (c.send_counts.size() != n || c.recv_counts.size() != n)
      bad_op(op, "all_to_allv has " + std::to_string(c.send_counts.size()) + " send and " +
                     std::to_string(c.recv_counts.size()) + " receive counts for a group of " +
                     std::to_string(group_size) + " ranks");
    l.ranks = group_size;
    l.send_counts = to_sizes(c.send_counts);
    l.recv_counts = to_sizes(c.recv_counts);
    l.send_displs = displacements(l.send_counts);
    l.recv_displs = displacements(l.recv_counts);
    const auto sum = [&](const std::vector<std::size_t>& counts) {
      std::uint64_t total = 0;
      for (std::size_t count : counts) total = checked_add(total, count, "all_to_allv counts");
      return total;
    };
    l.send_elements = sum(l.send_counts);
    l.recv_elements = sum(l.recv_counts);
    call.send_bytes = checked_mul(l.send_elements, element, "all_to_allv bytes");
    call.recv_bytes = checked_mul(l.recv_elements, element, "all_to_allv bytes");
    if (c.bytes != call.send_bytes)
      bad_op(op, "all_to_allv bytes " + std::to_string(c.bytes) +
                     " differ from its send counts' total " + std::to_string(call.send_bytes));
    return call;
  }

  if (!size_divides(call.spec->size_basis(), c.bytes, element, group_size))
    bad_op(op, std::to_string(c.bytes) + " bytes of " + std::string(dtype_name(c.dtype)) +
                   " do not divide into a group of " + std::to_string(group_size) + " ranks");
  OpParams params;
  params.root = c.root;
  params.peer = c.peer;
  if (call.spec->has_root() && (c.root < 0 || c.root >= group_size))
    bad_op(op, "root " + std::to_string(c.root) + " is not a rank of its group of " +
                   std::to_string(group_size));
  if (call.spec->needs_partner() && (c.peer < 0 || c.peer >= group_size))
    bad_op(op, "peer " + std::to_string(c.peer) + " is not a rank of its group of " +
                   std::to_string(group_size));
  l = call.spec->layout(call.spec->count_for_bytes(c.bytes, c.dtype, group_size), group_size, 0,
                        params);
  call.send_bytes = l.send_elements * element;
  call.recv_bytes = l.recv_elements * element;
  return call;
}

void issue_collective(Communicator& comm, const PreparedCollective& call, void* send, void* recv) {
  if (call.spec->point_to_point()) return comm.p2p_group(p2p_calls(comm, call, send, recv));
  call.spec->issue(comm, call.layout, send, recv, call.dtype);
}

std::vector<P2pCall> p2p_calls(const Communicator& comm, const PreparedCollective& call,
                               void* send, void* recv) {
  char* const send_at = static_cast<char*>(send) + call.send_offset_bytes;
  char* const recv_at = static_cast<char*>(recv) + call.recv_offset_bytes;
  // The layout was made for rank 0 of the group (prepare_collective); the calls are this rank's.
  OpLayout layout = call.layout;
  layout.rank = comm.rank();
  layout.ranks = comm.size();
  return call.spec->p2p_calls(layout, send_at, recv_at, call.dtype);
}

CollectiveBuffers::~CollectiveBuffers() {
  for (auto& [group, pair] : pairs_) {
    if (pair.send) pair.comm->release(pair.send);
    if (pair.recv) pair.comm->release(pair.recv);
  }
}

void CollectiveBuffers::plan(Communicator& comm, const PreparedCollective& call) {
  Pair& pair = pairs_[call.key];
  pair.comm = &comm;
  pair.send_bytes = std::max(pair.send_bytes, call.send_offset_bytes + call.send_bytes);
  pair.recv_bytes = std::max(pair.recv_bytes, call.recv_offset_bytes + call.recv_bytes);
}

void CollectiveBuffers::allocate() {
  for (auto& [group, pair] : pairs_) {
    if (pair.send_bytes && !pair.send) {
      pair.send = pair.comm->allocate(pair.send_bytes);
      zero_fill(*pair.comm, pair.send, pair.send_bytes);
    }
    if (pair.recv_bytes && !pair.recv) {
      pair.recv = pair.comm->allocate(pair.recv_bytes);
      zero_fill(*pair.comm, pair.recv, pair.recv_bytes);
    }
  }
}

const CollectiveBuffers::Pair& CollectiveBuffers::of(const GroupKey& group) const {
  auto it = pairs_.find(group);
  if (it == pairs_.end())
    throw RuntimeError("no collective buffers planned for group " + group_key_label(group));
  return it->second;
}

std::uint64_t CollectiveBuffers::total_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [group, pair] : pairs_) total += pair.send_bytes + pair.recv_bytes;
  return total;
}

}  // namespace collreplay
