// The NCCL communicator's collectives, issued on its stream, each under the call watchdog (a
// launch on the blocking communicator can block: nccl_setup.cpp).
#include <algorithm>

#include "collectives/device/cuda_check.hpp"
#include "collectives/nccl/nccl_check.hpp"
#include "collectives/nccl/nccl_internal.hpp"

namespace collreplay {
namespace {

const char* offset(const void* base, std::size_t elements, DType t) {
  return static_cast<const char*>(base) + elements * dtype_size_bytes(t);
}
char* offset(void* base, std::size_t elements, DType t) {
  return static_cast<char*>(base) + elements * dtype_size_bytes(t);
}

}  // namespace

void NcclCommunicator::all_gather(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  watched({"ncclAllGather", count, t},
          [&] { return ncclAllGather(send, recv, count, nccl_type(t), state_->comm, stream_); });
}

void NcclCommunicator::reduce_scatter(const void* send, void* recv, std::size_t count, DType t,
                                      ReduceOp op) {
  LogWindow window(*this);
  // NCCL's in-place form is recv == send + rank*count. Callers may also pass recv == send (the
  // convention of the other ops): reduce in NCCL's place, then move this rank's block to the
  // front (the ranges cannot overlap for rank > 0).
  void* nccl_recv = recv;
  const bool front_in_place = send == recv && rank_ != 0;
  if (front_in_place) nccl_recv = offset(recv, static_cast<std::size_t>(rank_) * count, t);
  watched({"ncclReduceScatter", count, t}, [&] {
    return ncclReduceScatter(send, nccl_recv, count, nccl_type(t), nccl_op(op), state_->comm,
                             stream_);
  });
  if (front_in_place) {
    const CallWatchdog::Scope scope(*watchdog_, "cudaMemcpyAsync (in-place reduce-scatter)");
    CUDA_CHECK(cudaMemcpyAsync(recv, nccl_recv, count * dtype_size_bytes(t),
                               cudaMemcpyDeviceToDevice, stream_));
  }
}

void NcclCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType t,
                                  ReduceOp op) {
  LogWindow window(*this);
  watched({"ncclAllReduce", count, t}, [&] {
    return ncclAllReduce(send, recv, count, nccl_type(t), nccl_op(op), state_->comm, stream_);
  });
}

// Inside the group the calls only queue work; ncclGroupEnd launches it (and may block).
void NcclCommunicator::grouped(const std::function<void()>& issue) {
  NCCL_CHECK(ncclGroupStart());
  try {
    issue();
  } catch (...) {
    ncclGroupEnd();  // close the group; the error that ended it is the one to report
    throw;
  }
  watched("ncclGroupEnd (aggregated ops)", [] { return ncclGroupEnd(); });
}

void NcclCommunicator::broadcast(const void* send, void* recv, std::size_t count, DType t,
                                 int root) {
  if (root < 0 || root >= size_)
    throw UsageError("broadcast root " + std::to_string(root) + " is not one of the " +
                     std::to_string(size_) + " ranks");
  LogWindow window(*this);
  watched({"ncclBroadcast", count, t}, [&] {
    return ncclBroadcast(send, recv, count, nccl_type(t), root, state_->comm, stream_);
  });
}

void NcclCommunicator::p2p_group(std::span<const P2pCall> calls) {
  for (const P2pCall& call : calls)
    if (call.peer < 0 || call.peer >= size_)
      throw UsageError("point-to-point peer " + std::to_string(call.peer) + " is not one of the " +
                       std::to_string(size_) + " ranks");
  if (calls.empty()) return;
  LogWindow window(*this);
  // As all_to_allv: inside the group the calls only queue work; ncclGroupEnd launches it.
  NCCL_CHECK(ncclGroupStart());
  for (const P2pCall& call : calls) {
    if (call.direction == P2pCall::Direction::send)
      NCCL_CHECK(ncclSend(call.buffer, call.count, nccl_type(call.dtype), call.peer, state_->comm,
                          stream_));
    else
      NCCL_CHECK(ncclRecv(call.buffer, call.count, nccl_type(call.dtype), call.peer, state_->comm,
                          stream_));
  }
  watched("ncclGroupEnd (p2p group)", [] { return ncclGroupEnd(); });
}

// NCCL's own all-to-all (2.28 and later). It has no in-place form, so in place the send side
// first moves to a staging buffer.
void NcclCommunicator::all_to_all(const void* send, void* recv, std::size_t count, DType t) {
  LogWindow window(*this);
  const std::size_t total_bytes = count * dtype_size_bytes(t) * static_cast<std::size_t>(size_);
  if (send == recv && count > 0) send = staged_copy(send, total_bytes);
  watched({"ncclAlltoAll", count, t},
          [&] { return ncclAlltoAll(send, recv, count, nccl_type(t), state_->comm, stream_); });
}

// NCCL's send/recv within one group has no order between a send and a receive of the same
// peer, so in place the send side first moves to a staging buffer.
void NcclCommunicator::all_to_allv(const void* send, PeerCounts send_layout, void* recv,
                                   PeerCounts recv_layout, DType t) {
  const std::size_t n = static_cast<std::size_t>(size_);
  if (send_layout.counts.size() != n || send_layout.displs.size() != n ||
      recv_layout.counts.size() != n || recv_layout.displs.size() != n)
    throw UsageError("all_to_allv needs one count and one displacement per rank (" +
                     std::to_string(n) + ")");
  LogWindow window(*this);
  if (send == recv) {
    std::size_t extent = 0;
    for (std::size_t p = 0; p < n; ++p)
      extent = std::max(extent, send_layout.displs[p] + send_layout.counts[p]);
    if (extent > 0) send = staged_copy(send, extent * dtype_size_bytes(t));
  }
  const ncclDataType_t type = nccl_type(t);
  // Inside a group, send and receive only queue work; ncclGroupEnd launches it (and may block).
  NCCL_CHECK(ncclGroupStart());
  for (std::size_t p = 0; p < n; ++p) {
    const int peer = static_cast<int>(p);
    if (send_layout.counts[p] > 0)
      NCCL_CHECK(ncclSend(offset(send, send_layout.displs[p], t), send_layout.counts[p], type, peer,
                          state_->comm, stream_));
    if (recv_layout.counts[p] > 0)
      NCCL_CHECK(ncclRecv(offset(recv, recv_layout.displs[p], t), recv_layout.counts[p], type, peer,
                          state_->comm, stream_));
  }
  watched("ncclGroupEnd (all-to-allv)", [] { return ncclGroupEnd(); });
}

}  // namespace collreplay
