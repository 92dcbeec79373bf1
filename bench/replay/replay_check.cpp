#include "bench/replay/replay_check.hpp"

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/ops/fill_pattern.hpp"
#include "collectives/ops/host_values.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

using Signature = std::tuple<CollectiveKind, GroupKind, DType, std::size_t,
                             std::vector<std::size_t>, std::vector<std::size_t>>;

// Issues `call` on its group's buffers and waits for it.
void run_once(const Executor& executor, const PreparedCollective& call) {
  Communicator& comm = executor.groups().get(call.group);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(call.group);
  issue_collective(comm, call, buffers.send, buffers.recv);
  comm.wait_all("replay -c check of " + executor.schedule().ops[call.op].name);
}

std::uint64_t check_with_spec(const Executor& executor, const PreparedCollective& call,
                              std::uint64_t seed) {
  Communicator& comm = executor.groups().get(call.group);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(call.group);
  const OpSpec& spec = *call.spec;
  const OpLayout layout =
      spec.layout(call.layout.count, comm.size(), comm.rank(), OpParams{seed, {}});
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
  Communicator& comm = executor.groups().get(call.group);
  const CollectiveBuffers::Pair& buffers = executor.buffers().of(call.group);
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
    // Collectives of one shape are one check: the data path does not depend on the op's name.
    // all_to_allv counts differ between ranks, so every rank checks every one (same decisions).
    if (call->kind != CollectiveKind::all_to_allv &&
        !seen.emplace(call->kind, call->group, call->dtype, call->layout.count,
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
