#include "bench/replay/measure/replay_check.hpp"

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/values/fill_pattern.hpp"
#include "collectives/values/host_values.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

using Signature = std::tuple<CollectiveKind, GroupKey, DType, std::size_t, int,
                             std::vector<std::size_t>, std::vector<std::size_t>>;

// Issues `call` (with the rest of its p2p group) on its group's buffers and waits for it.
void run_once(const Executor& executor, const PreparedCollective& call) {
  Communicator& comm = executor.groups().get(call.key);
  executor.issue_group(call.op);
  comm.wait_all("replay -c check of " + executor.schedule().ops[call.op].name);
}

[[noreturn]] void mismatch(const Executor& executor, int op, std::uint64_t wrong) {
  throw DataMismatchError("replay -c: " + std::to_string(wrong) + " wrong elements in " +
                          executor.schedule().ops[op].name);
}

// A p2p group: every send carries the sender's seeded pattern (fill_value of its group rank),
// every receive must hold its peer's.
std::uint64_t check_p2p_group(const Executor& executor, int first, std::uint64_t seed) {
  const PreparedCollective& lead = *executor.prepared(first);
  Communicator& comm = executor.groups().get(lead.key);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(lead.key);
  const std::size_t element = dtype_size_bytes(lead.dtype);
  std::vector<char> send(buffers.send_bytes), recv(buffers.recv_bytes);
  const std::vector<int> members = executor.issued_with(first);
  for (int op : members) {
    const PreparedCollective& call = *executor.prepared(op);
    char* at = send.data() + call.send_offset_bytes;
    for (std::size_t i = 0; i < call.send_bytes / element; ++i)
      store_value(call.dtype, at, i, static_cast<float>(fill_value(seed, comm.rank(), i)));
    at = recv.data() + call.recv_offset_bytes;
    for (std::size_t i = 0; i < call.recv_bytes / element; ++i)
      store_value(call.dtype, at, i, static_cast<float>(kPoisonValue));
  }
  comm.copy_from_host(buffers.send, send.data(), send.size());
  comm.copy_from_host(buffers.recv, recv.data(), recv.size());
  run_once(executor, lead);
  comm.copy_to_host(recv.data(), buffers.recv, recv.size());
  std::uint64_t wrong = 0, checked = 0;
  const int n = comm.size();
  for (int op : members) {
    const PreparedCollective& call = *executor.prepared(op);
    if (call.kind == CollectiveKind::send) continue;
    const int source =
        call.kind == CollectiveKind::recv ? call.layout.peer : (comm.rank() - 1 + n) % n;
    const char* at = recv.data() + call.recv_offset_bytes;
    for (std::size_t i = 0; i < call.recv_bytes / element; ++i, ++checked)
      if (load_value(call.dtype, at, i) != static_cast<float>(fill_value(seed, source, i)))
        ++wrong;
    if (wrong) mismatch(executor, op, wrong);
  }
  return checked;
}

std::uint64_t check_with_spec(const Executor& executor, const PreparedCollective& call,
                              std::uint64_t seed) {
  Communicator& comm = executor.groups().get(call.key);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(call.key);
  const OpSpec& spec = *call.spec;
  OpParams params{seed, {}};
  params.root = call.layout.root;
  const OpLayout layout = spec.layout(call.layout.count, comm.size(), comm.rank(), params);
  const std::size_t element = dtype_size_bytes(call.dtype);
  std::vector<char> send(layout.send_elements * element), recv(layout.recv_elements * element);
  fill_send_buffer(spec, layout, Placement::out_of_place, call.dtype, seed, send.data());
  poison_recv_buffer(layout, call.dtype, recv.data());
  comm.copy_from_host(buffers.send, send.data(), send.size());
  comm.copy_from_host(buffers.recv, recv.data(), recv.size());
  run_once(executor, call);
  comm.copy_to_host(recv.data(), buffers.recv, recv.size());
  const std::uint64_t wrong =
      count_wrong(spec, layout, Placement::out_of_place, call.dtype, seed, recv.data());
  if (wrong)
    throw DataMismatchError("replay -c: " + std::to_string(wrong) + " wrong elements in " +
                            executor.schedule().ops[call.op].name);
  return layout.recv_elements;
}

std::uint64_t check_all_to_allv(const Executor& executor, const PreparedCollective& call,
                                std::uint64_t seed) {
  Communicator& comm = executor.groups().get(call.key);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(call.key);
  const int me = comm.rank();
  std::vector<char> send(call.send_bytes), recv(call.recv_bytes);
  for (std::size_t peer = 0; peer < call.layout.send_counts.size(); ++peer)
    for (std::size_t i = 0; i < call.layout.send_counts[peer]; ++i)
      store_value(call.dtype, send.data(), call.layout.send_displs[peer] + i,
                  static_cast<float>(fill_value(seed + peer, me, i)));
  // Poisoned, so that an op that writes nothing cannot pass on what an earlier one left there.
  for (std::size_t i = 0; i < call.recv_bytes / dtype_size_bytes(call.dtype); ++i)
    store_value(call.dtype, recv.data(), i, static_cast<float>(kPoisonValue));
  comm.copy_from_host(buffers.send, send.data(), send.size());
  comm.copy_from_host(buffers.recv, recv.data(), recv.size());
  run_once(executor, call);
  comm.copy_to_host(recv.data(), buffers.recv, recv.size());
  std::uint64_t wrong = 0, checked = 0;
  for (std::size_t source = 0; source < call.layout.recv_counts.size(); ++source)
    for (std::size_t i = 0; i < call.layout.recv_counts[source]; ++i, ++checked)
      if (load_value(call.dtype, recv.data(), call.layout.recv_displs[source] + i) !=
          static_cast<float>(fill_value(seed + me, static_cast<int>(source), i)))
        ++wrong;
  if (wrong)
    throw DataMismatchError("replay -c: " + std::to_string(wrong) + " wrong elements in " +
                            executor.schedule().ops[call.op].name);
  return checked;
}

}  // namespace

CheckSummary check_replayed_collectives(const Executor& executor, std::uint64_t seed) {
  CheckSummary summary;
  std::set<Signature> seen;
  for (std::size_t i = 0; i < executor.schedule().ops.size(); ++i) {
    const PreparedCollective* call = executor.prepared(static_cast<int>(i));
    if (!call) continue;
    // Point-to-point ops differ between ranks (one sends what the other receives): every rank
    // checks every p2p group, with its partners.
    if (is_point_to_point(call->kind)) {
      if (executor.issued_with(static_cast<int>(i)).empty()) continue;  // checked with its first
      summary.elements_checked += check_p2p_group(executor, static_cast<int>(i), seed);
      ++summary.collectives_checked;
      continue;
    }
    // Collectives of one shape are one check: the data path does not depend on the op's name.
    // all_to_allv counts differ between ranks, so every rank checks every one (same decisions).
    if (call->kind != CollectiveKind::all_to_allv &&
        !seen.emplace(call->kind, call->key, call->dtype, call->layout.count, call->layout.root,
                      call->layout.send_counts, call->layout.recv_counts)
             .second)
      continue;
    summary.elements_checked += call->kind == CollectiveKind::all_to_allv
                                    ? check_all_to_allv(executor, *call, seed)
                                    : check_with_spec(executor, *call, seed);
    ++summary.collectives_checked;
  }
  return summary;
}

}  // namespace collreplay
