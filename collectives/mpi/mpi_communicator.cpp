#include "collectives/mpi/mpi_communicator.hpp"

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "collectives/backend.hpp"
#include "collectives/device/mpi_device_memory.hpp"
#include "collectives/host/host_memory.hpp"
#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_transport.hpp"
#include "collectives/mpi/mpi_version.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"
#include "common/sizes.hpp"

namespace collreplay {
namespace {

// Host events: done once every op issued before them is done; the timestamp is MPI_Wtime at
// the moment completion was observed (callers synchronize right away when they time).
class HostEvent final : public StreamEvent {
 public:
  HostEvent(std::shared_ptr<MpiRequestQueue> queue, std::uint64_t seq, double timeout_s)
      : queue_(std::move(queue)), seq_(seq), timeout_s_(timeout_s) {
    if (queue_->completed() >= seq_) done_at_s_ = MPI_Wtime();
  }
  bool query() override {
    if (done_at_s_ < 0 && queue_->progress() >= seq_) done_at_s_ = MPI_Wtime();
    return done_at_s_ >= 0;
  }
  void synchronize() override {
    if (done_at_s_ >= 0) return;
    queue_->wait_until(seq_, timeout_s_, "an event");
    done_at_s_ = MPI_Wtime();
  }
  double elapsed_ms_since(const StreamEvent& earlier) const override {
    const auto* other = dynamic_cast<const HostEvent*>(&earlier);
    if (!other || other->done_at_s_ < 0 || done_at_s_ < 0)
      throw RuntimeError("elapsed_ms_since needs two completed host events");
    return (done_at_s_ - other->done_at_s_) * 1e3;
  }
  void* native_handle() const override { return nullptr; }

 private:
  std::shared_ptr<MpiRequestQueue> queue_;
  std::uint64_t seq_;
  double timeout_s_;
  double done_at_s_ = -1;
};

bool fits_int(std::span<const std::size_t> values) {
  for (std::size_t v : values)
    if (v > static_cast<std::size_t>(INT_MAX)) return false;
  return true;
}

std::vector<int> to_int(std::span<const std::size_t> values) {
  return std::vector<int>(values.begin(), values.end());
}

constexpr int kAllToAllvTag = 7301;  // point-to-point fallback for > INT_MAX counts
// Sends and receives of p2p groups: one tag, since MPI keeps messages between two ranks of one
// communicator and tag in order and every rank issues its groups in schedule order.
constexpr int kPointToPointTag = 7302;

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm parent, const BackendOptions& options) {
  MPI_CHECK(MPI_Comm_dup(parent, &comm_));
  MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  timeout_seconds_ = options.timeout_seconds;
  queue_ = std::make_shared<MpiRequestQueue>(rank_);
  types_ = std::make_unique<MpiTypeCache>();
  if (options.mpi_device_buffers) {
    if (!mpi_is_cuda_aware())
      throw UsageError("device buffers for the MPI backend need a CUDA-aware MPI library");
    mpi_device_select(local_rank(comm_));
    device_buffers_ = true;
  }
  transport_ = detect_mpi_transport(comm_);
  if (!device_buffers_)
    host_collectives_ = std::make_unique<HostCollectives>(comm_, *types_, *queue_);
}

MpiCommunicator::MpiCommunicator(Adopt, MPI_Comm owned, double timeout_seconds, bool device_buffers)
    : comm_(owned), timeout_seconds_(timeout_seconds), device_buffers_(device_buffers) {
  MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  queue_ = std::make_shared<MpiRequestQueue>(rank_);
  types_ = std::make_unique<MpiTypeCache>();
  transport_ = detect_mpi_transport(comm_);
  if (!device_buffers_)
    host_collectives_ = std::make_unique<HostCollectives>(comm_, *types_, *queue_);
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A communicator with ops still pending (after a timeout) cannot be freed safely.
  if (!finalized && queue_->progress() == queue_->issued()) MPI_Comm_free(&comm_);
}

std::string MpiCommunicator::transport() const { return transport_; }

std::vector<std::string> MpiCommunicator::interfaces() const {
  return mpi_transport_interfaces(transport_);
}

std::string MpiCommunicator::device_description() const {
  if (device_buffers_) return "GPU buffers through CUDA-aware MPI";
  return "host (" + host_name() + ", " + std::to_string(std::thread::hardware_concurrency()) +
         " cpus)";
}

std::map<std::string, std::string> MpiCommunicator::library_versions() const {
  return {{"mpi", mpi_library_version()}, {"mpi_standard", mpi_standard_version()}};
}

void* MpiCommunicator::allocate(std::size_t bytes) {
  if (device_buffers_) return mpi_device_alloc(bytes);
  return allocate_host_buffer(bytes);
}

void MpiCommunicator::release(void* buffer) {
  if (device_buffers_)
    mpi_device_free(buffer);
  else
    free_host_buffer(buffer);
}

void MpiCommunicator::copy_from_host(void* dst, const void* host_src, std::size_t bytes) {
  if (device_buffers_)
    mpi_device_copy(dst, host_src, bytes);
  else
    std::memcpy(dst, host_src, bytes);
}

void MpiCommunicator::copy_to_host(void* host_dst, const void* src, std::size_t bytes) {
  if (device_buffers_)
    mpi_device_copy(host_dst, src, bytes);
  else
    std::memcpy(host_dst, src, bytes);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) {
  MPI_Comm child = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split(comm_, color, key, &child));
  return std::unique_ptr<Communicator>(
      new MpiCommunicator(Adopt{}, child, timeout_seconds_, device_buffers_));
}

void MpiCommunicator::all_gather(const void* send, void* recv, std::size_t count, DType t) {
  if (host_collectives_)
    return host_collectives_->all_gather(send, recv, count, t,
                                         describe_collective_call("all_gather", count, t));
  const MpiSpan span = types_->span(t, count);
  const auto* my_slice = static_cast<const char*>(recv) + rank_ * count * dtype_size_bytes(t);
  const void* source = send == my_slice ? MPI_IN_PLACE : send;
  MPI_Request request;
  MPI_CHECK(
      MPI_Iallgather(source, span.count, span.type, recv, span.count, span.type, comm_, &request));
  queue_->push(describe_collective_call("all_gather", count, t), {request});
}

void MpiCommunicator::reduce_scatter(const void* send, void* recv, std::size_t count, DType t,
                                     ReduceOp op) {
  if (host_collectives_)
    return host_collectives_->reduce_scatter(send, recv, count, t, op,
                                             describe_collective_call("reduce_scatter", count, t));
  const MpiSpan span = types_->span(t, count);
  const MPI_Op reduce = types_->reduce_op(t, op, span.type);
  const std::size_t slice_bytes = count * dtype_size_bytes(t);
  MPI_Request request;
  std::function<void()> on_done;
  if (send == recv) {
    MPI_CHECK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, recv, span.count, span.type, reduce, comm_,
                                        &request));
  } else if (recv == static_cast<const char*>(send) + rank_ * slice_bytes) {
    // NCCL's in-place form: the result belongs at this rank's slice of the input, while MPI's
    // in-place form leaves it at the start, so it is moved once the op completes.
    void* input = const_cast<void*>(send);
    MPI_CHECK(MPI_Ireduce_scatter_block(MPI_IN_PLACE, input, span.count, span.type, reduce, comm_,
                                        &request));
    on_done = [this, input, recv, slice_bytes] {
      if (device_buffers_)
        mpi_device_copy(recv, input, slice_bytes);  // slices do not overlap (rank > 0)
      else
        std::memmove(recv, input, slice_bytes);
    };
  } else {
    MPI_CHECK(
        MPI_Ireduce_scatter_block(send, recv, span.count, span.type, reduce, comm_, &request));
  }
  queue_->push(describe_collective_call("reduce_scatter", count, t), {request}, std::move(on_done));
}

void MpiCommunicator::all_to_all(const void* send, void* recv, std::size_t count, DType t) {
  if (host_collectives_)
    return host_collectives_->all_to_all(send, recv, count, t,
                                         describe_collective_call("all_to_all", count, t));
  const MpiSpan span = types_->span(t, count);
  const void* source = send == recv ? MPI_IN_PLACE : send;
  MPI_Request request;
  MPI_CHECK(
      MPI_Ialltoall(source, span.count, span.type, recv, span.count, span.type, comm_, &request));
  queue_->push(describe_collective_call("all_to_all", count, t), {request});
}

void MpiCommunicator::all_to_allv(const void* send, PeerCounts send_layout, void* recv,
                                  PeerCounts recv_layout, DType t) {
  const auto n = static_cast<std::size_t>(size_);
  if (send_layout.counts.size() != n || send_layout.displs.size() != n ||
      recv_layout.counts.size() != n || recv_layout.displs.size() != n)
    throw RuntimeError("all_to_allv needs one count and displacement per rank");
  if (send == recv) throw UsageError("in-place all_to_allv is not supported by the MPI backend");
  std::size_t total = 0;
  for (std::size_t c : send_layout.counts) total += c;
  std::string description = "all_to_allv sending " + format_bytes(total * dtype_size_bytes(t)) +
                            " from this rank (" + std::string(dtype_name(t)) + ")";
  if (!(fits_int(send_layout.counts) && fits_int(send_layout.displs) &&
        fits_int(recv_layout.counts) && fits_int(recv_layout.displs))) {
    all_to_allv_point_to_point(static_cast<const char*>(send), send_layout,
                               static_cast<char*>(recv), recv_layout, t, std::move(description));
    return;
  }
  // Nonblocking collectives may read the count arrays until completion (MPI 3.1 §5.12), so they
  // live in the queue entry's follow-up closure until the op is done.
  auto arrays = std::make_shared<std::array<std::vector<int>, 4>>(
      std::array<std::vector<int>, 4>{to_int(send_layout.counts), to_int(send_layout.displs),
                                      to_int(recv_layout.counts), to_int(recv_layout.displs)});
  MPI_Request request;
  MPI_CHECK(MPI_Ialltoallv(send, (*arrays)[0].data(), (*arrays)[1].data(), mpi_element_type(t),
                           recv, (*arrays)[2].data(), (*arrays)[3].data(), mpi_element_type(t),
                           comm_, &request));
  queue_->push(std::move(description), {request}, [arrays] {});
}

void MpiCommunicator::all_to_allv_point_to_point(const char* send, PeerCounts send_layout,
                                                 char* recv, PeerCounts recv_layout, DType t,
                                                 std::string description) {
  const std::size_t element_bytes = dtype_size_bytes(t);
  std::vector<MPI_Request> requests;
  // Receives are posted before sends so no message waits for an unexpected-message buffer.
  auto post = [&](PeerCounts layout, auto&& start) {
    for (int peer = 0; peer < size_; ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      if (layout.counts[p] == 0) continue;
      const MpiSpan span = types_->span(t, layout.counts[p]);
      requests.emplace_back();
      start(layout.displs[p] * element_bytes, span, peer, &requests.back());
    }
  };
  post(recv_layout, [&](std::size_t offset, const MpiSpan& span, int peer, MPI_Request* request) {
    MPI_CHECK(MPI_Irecv(recv + offset, span.count, span.type, peer, kAllToAllvTag, comm_, request));
  });
  post(send_layout, [&](std::size_t offset, const MpiSpan& span, int peer, MPI_Request* request) {
    MPI_CHECK(MPI_Isend(send + offset, span.count, span.type, peer, kAllToAllvTag, comm_, request));
  });
  queue_->push(std::move(description), std::move(requests));
}

void MpiCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType t,
                                 ReduceOp op) {
  if (host_collectives_)
    return host_collectives_->all_reduce(send, recv, count, t, op,
                                         describe_collective_call("all_reduce", count, t));
  const MpiSpan span = types_->span(t, count);
  const void* source = send == recv ? MPI_IN_PLACE : send;
  MPI_Request request;
  MPI_CHECK(MPI_Iallreduce(source, recv, span.count, span.type, types_->reduce_op(t, op, span.type),
                           comm_, &request));
  queue_->push(describe_collective_call("all_reduce", count, t), {request});
}

void MpiCommunicator::broadcast(const void* send, void* recv, std::size_t count, DType t,
                                int root) {
  if (root < 0 || root >= size_)
    throw UsageError("broadcast root " + std::to_string(root) + " is not one of the " +
                     std::to_string(size_) + " ranks");
  const MpiSpan span = types_->span(t, count);
  // MPI's broadcast is in-place: the root sends from its input (MPI only reads it there) and,
  // out-of-place, copies it to its output once the op is done.
  const bool root_out_of_place = rank_ == root && send != recv;
  void* buffer = root_out_of_place ? const_cast<void*>(send) : recv;
  MPI_Request request;
  MPI_CHECK(MPI_Ibcast(buffer, span.count, span.type, root, comm_, &request));
  std::function<void()> on_done;
  if (root_out_of_place) {
    const std::size_t bytes = count * dtype_size_bytes(t);
    on_done = [this, send, recv, bytes] {
      if (device_buffers_)
        mpi_device_copy(recv, send, bytes);
      else
        std::memcpy(recv, send, bytes);
    };
  }
  queue_->push(describe_collective_call("broadcast", count, t) + " from rank " +
                   std::to_string(root),
               {request}, std::move(on_done));
}

void MpiCommunicator::p2p_group(std::span<const P2pCall> calls) {
  std::vector<MPI_Request> requests;
  std::string description;
  // Receives first, so that no message waits in an unexpected-message buffer.
  for (P2pCall::Direction direction : {P2pCall::Direction::recv, P2pCall::Direction::send}) {
    for (const P2pCall& call : calls) {
      if (call.direction != direction) continue;
      if (call.peer < 0 || call.peer >= size_)
        throw UsageError("point-to-point peer " + std::to_string(call.peer) +
                         " is not one of the " + std::to_string(size_) + " ranks");
      const MpiSpan span = types_->span(call.dtype, call.count);
      requests.emplace_back();
      const bool is_send = direction == P2pCall::Direction::send;
      if (is_send)
        MPI_CHECK(MPI_Isend(call.buffer, span.count, span.type, call.peer, kPointToPointTag, comm_,
                            &requests.back()));
      else
        MPI_CHECK(MPI_Irecv(call.buffer, span.count, span.type, call.peer, kPointToPointTag,
                            comm_, &requests.back()));
      description += std::string(description.empty() ? "" : ", ") +
                     describe_collective_call(is_send ? "send" : "recv", call.count, call.dtype) +
                     (is_send ? " to rank " : " from rank ") + std::to_string(call.peer);
    }
  }
  if (requests.empty()) return;
  queue_->push("p2p group: " + description, std::move(requests));
}

std::shared_ptr<StreamEvent> MpiCommunicator::record() {
  return std::make_shared<HostEvent>(queue_, queue_->issued(), timeout_seconds_);
}

void MpiCommunicator::wait_all(const std::string& what_for) {
  queue_->wait_until(queue_->issued(), timeout_seconds_, what_for);
}

void MpiCommunicator::barrier() {
  MPI_Request request;
  MPI_CHECK(MPI_Ibarrier(comm_, &request));
  queue_->push("barrier", {request});
  wait_all("barrier");
}

void MpiCommunicator::abort(int exit_code) {
  MPI_Abort(comm_, exit_code);
  std::_Exit(exit_code);
}

}  // namespace collreplay
