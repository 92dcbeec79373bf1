#include "collectives/host/host_collectives.hpp"

#include <algorithm>
#include <cstring>

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/values/host_reduce.hpp"

namespace collreplay {
namespace {

// One tag per kind of exchange: messages of one kind match in issue order (MPI's
// non-overtaking rule), and kinds never match each other.
constexpr int kAllGatherTag = 7310;
constexpr int kReduceScatterTag = 7311;
constexpr int kAllToAllTag = 7314;
constexpr int kAllReduceReduceTag = 7312;
constexpr int kAllReduceGatherTag = 7313;

bool overlaps(const char* a, std::size_t a_bytes, const char* b, std::size_t b_bytes) {
  return a < b + b_bytes && b < a + a_bytes;
}

// avg's step before the sum (floats: scale each contribution) and after it (integers: divide).
bool premultiplied(ReduceOp op, DType t) {
  return op == ReduceOp::avg && averages_before_summing(t);
}
bool postdivided(ReduceOp op, DType t) {
  return op == ReduceOp::avg && !averages_before_summing(t);
}

// Scales the contributions that arrived (in scratch) before they are reduced, under avg.
void premultiply_arrived(const std::vector<const void*>& arrived, DType t, ReduceOp op,
                         std::size_t count, int ranks) {
  if (!premultiplied(op, t)) return;
  for (const void* slice : arrived) premultiply_values(t, const_cast<void*>(slice), count, ranks);
}

// The share of `count` elements that rank k owns in the all-reduce: balanced to one element.
struct Chunks {
  std::size_t count;
  int ranks;
  std::size_t offset(int k) const {
    const auto ku = static_cast<std::size_t>(k);
    return ku * (count / ranks) + std::min<std::size_t>(ku, count % ranks);
  }
  std::size_t length(int k) const {
    return count / ranks + (static_cast<std::size_t>(k) < count % ranks ? 1 : 0);
  }
};

}  // namespace

HostCollectives::HostCollectives(MPI_Comm comm, MpiTypeCache& types, MpiRequestQueue& queue)
    : comm_(comm), types_(types), queue_(queue) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::shared_ptr<HostCollectives::Buffer> HostCollectives::acquire(std::size_t bytes) {
  auto buffer = std::make_shared<Buffer>();
  if (!idle_->empty()) {
    // The largest idle buffer: the one least likely to need growing.
    auto largest =
        std::max_element(idle_->begin(), idle_->end(),
                         [](const Buffer& a, const Buffer& b) { return a.size() < b.size(); });
    *buffer = std::move(*largest);
    idle_->erase(largest);
  }
  buffer->reserve(bytes);
  return buffer;
}

MPI_Request HostCollectives::receive(void* buffer, std::size_t count, DType t, int peer, int tag) {
  const MpiSpan span = types_.span(t, count);
  MPI_Request request;
  MPI_CHECK(MPI_Irecv(buffer, span.count, span.type, peer, tag, comm_, &request));
  return request;
}

MPI_Request HostCollectives::send(const void* buffer, std::size_t count, DType t, int peer,
                                  int tag) {
  const MpiSpan span = types_.span(t, count);
  MPI_Request request;
  MPI_CHECK(MPI_Isend(buffer, span.count, span.type, peer, tag, comm_, &request));
  return request;
}

void HostCollectives::all_gather(const void* send_buffer, void* recv_buffer, std::size_t count,
                                 DType t, std::string description) {
  const std::size_t slice_bytes = count * dtype_size_bytes(t);
  auto* output = static_cast<char*>(recv_buffer);
  char* own = output + static_cast<std::size_t>(rank_) * slice_bytes;
  std::vector<MPI_Request> requests;
  if (count > 0)
    for (int k = 1; k < size_; ++k) {
      const int from = (rank_ - k + size_) % size_, to = (rank_ + k) % size_;
      requests.push_back(receive(output + static_cast<std::size_t>(from) * slice_bytes, count, t,
                                 from, kAllGatherTag));
      requests.push_back(send(send_buffer, count, t, to, kAllGatherTag));
    }
  // The local copy runs while the messages are in flight: posted first, they need not wait.
  if (send_buffer != own) std::memcpy(own, send_buffer, slice_bytes);
  queue_.push(std::move(description), std::move(requests));
}

void HostCollectives::all_to_all(const void* send_buffer, void* recv_buffer, std::size_t count,
                                 DType t, std::string description) {
  const std::size_t block_bytes = count * dtype_size_bytes(t);
  auto* output = static_cast<char*>(recv_buffer);
  // In-place, the blocks to send are overwritten by those received: they leave from a copy.
  std::shared_ptr<Buffer> copy;
  const auto* input = static_cast<const char*>(send_buffer);
  if (send_buffer == recv_buffer) {
    copy = acquire(block_bytes * static_cast<std::size_t>(size_));
    std::memcpy(copy->data(), input, block_bytes * static_cast<std::size_t>(size_));
    input = copy->data();
  }
  const auto block = [block_bytes](int rank) {
    return static_cast<std::size_t>(rank) * block_bytes;
  };
  std::vector<MPI_Request> requests;
  if (count > 0) {
    for (int k = 1; k < size_; ++k) {
      const int from = (rank_ - k + size_) % size_;
      requests.push_back(receive(output + block(from), count, t, from, kAllToAllTag));
    }
    for (int k = 1; k < size_; ++k) {
      const int to = (rank_ + k) % size_;
      requests.push_back(send(input + block(to), count, t, to, kAllToAllTag));
    }
  }
  if (input != output) std::memcpy(output + block(rank_), input + block(rank_), block_bytes);
  std::function<void()> on_done;
  if (copy) on_done = [idle = idle_, copy] { idle->push_back(std::move(*copy)); };
  queue_.push(std::move(description), std::move(requests), std::move(on_done));
}

void HostCollectives::reduce_scatter(const void* send_buffer, void* recv_buffer, std::size_t count,
                                     DType t, ReduceOp op, std::string description) {
  const std::size_t slice_bytes = count * dtype_size_bytes(t);
  const auto* input = static_cast<const char*>(send_buffer);
  auto* output = static_cast<char*>(recv_buffer);
  const char* own = input + static_cast<std::size_t>(rank_) * slice_bytes;
  const std::size_t input_bytes = slice_bytes * static_cast<std::size_t>(size_);
  // The sum builds up in the output unless the output overlaps slices still being sent (MPI's
  // in-place form on ranks > 0): then in scratch, copied out once the sends are done.
  const bool in_output = output == own || !overlaps(output, slice_bytes, input, input_bytes);
  const int peers = size_ - 1;
  auto scratch = acquire(slice_bytes * static_cast<std::size_t>(peers + (in_output ? 0 : 1)));
  char* sum = in_output ? output : scratch->data() + slice_bytes * static_cast<std::size_t>(peers);

  std::vector<MPI_Request> requests;
  if (count > 0) {
    // Receives first (index k-1 holds the slice from rank - k), then sends (to rank + k): at each
    // k every rank has one partner of each kind, so no rank is everyone's first target.
    for (int k = 1; k <= peers; ++k)
      requests.push_back(receive(scratch->data() + slice_bytes * static_cast<std::size_t>(k - 1),
                                 count, t, (rank_ - k + size_) % size_, kReduceScatterTag));
    for (int k = 1; k <= peers; ++k) {
      const int peer = (rank_ + k) % size_;
      requests.push_back(send(input + static_cast<std::size_t>(peer) * slice_bytes, count, t, peer,
                              kReduceScatterTag));
    }
  }
  // The sum starts from this rank's own slice: the first slices to arrive are added to it in the
  // same pass that writes the sum (no separate copy of it; slices are added only when the queue
  // is polled, after this returns).
  auto started = std::make_shared<bool>(sum == own);
  if (premultiplied(op, t)) {  // this rank's contribution is scaled once, into the sum
    if (sum != own) std::memcpy(sum, own, slice_bytes);
    premultiply_values(t, sum, count, size_);
    *started = true;
  }
  MpiRequestQueue::Stages stages;
  const auto slices = static_cast<std::size_t>(peers);
  const int ranks = size_;
  stages.on_requests_done = [scratch, sum, own, started, slice_bytes, slices, count, t, op,
                             ranks](std::span<const int> done) {
    std::vector<const void*> arrived;  // the slices this poll found: one pass reduces them all
    for (int index : done)
      if (static_cast<std::size_t>(index) < slices)
        arrived.push_back(scratch->data() + static_cast<std::size_t>(index) * slice_bytes);
    if (arrived.empty()) return;
    premultiply_arrived(arrived, t, op, count, ranks);
    reduce_values(t, op, sum, *started ? sum : own, arrived, count);
    *started = true;
  };
  queue_.push_staged(std::move(description), std::move(requests), std::move(stages),
                     [idle = idle_, scratch, sum, own, started, output, in_output, slice_bytes,
                      divide = postdivided(op, t), count, t, ranks] {
                       if (!*started) std::memcpy(sum, own, slice_bytes);  // no peer sent
                       if (divide) postdivide_values(t, sum, count, ranks);
                       if (!in_output) std::memcpy(output, sum, slice_bytes);
                       idle->push_back(std::move(*scratch));
                     });
}

void HostCollectives::all_reduce(const void* send_buffer, void* recv_buffer, std::size_t count,
                                 DType t, ReduceOp op, std::string description) {
  const std::size_t element_bytes = dtype_size_bytes(t);
  const auto* input = static_cast<const char*>(send_buffer);
  auto* output = static_cast<char*>(recv_buffer);
  const Chunks chunks{count, size_};
  const std::size_t own_bytes = chunks.length(rank_) * element_bytes;
  char* sum = output + chunks.offset(rank_) * element_bytes;
  const int peers = size_ - 1;
  auto scratch = acquire(own_bytes * static_cast<std::size_t>(peers));

  // Stage 1, reduce-scatter: chunk `peer` of the input to its owner; this rank's chunk from
  // every peer, summed into the output as it arrives. Empty chunks (count < ranks) send nothing.
  std::vector<MPI_Request> requests;
  auto slot_of_request = std::make_shared<std::vector<int>>();
  if (own_bytes > 0)
    for (int k = 1; k <= peers; ++k) {
      requests.push_back(receive(scratch->data() + own_bytes * static_cast<std::size_t>(k - 1),
                                 chunks.length(rank_), t, (rank_ - k + size_) % size_,
                                 kAllReduceReduceTag));
      slot_of_request->push_back(k - 1);
    }
  for (int k = 1; k <= peers; ++k) {
    const int peer = (rank_ + k) % size_;
    if (chunks.length(peer) == 0) continue;
    requests.push_back(send(input + chunks.offset(peer) * element_bytes, chunks.length(peer), t,
                            peer, kAllReduceReduceTag));
    slot_of_request->push_back(-1);
  }
  if (input != output) std::memcpy(sum, input + chunks.offset(rank_) * element_bytes, own_bytes);
  if (premultiplied(op, t)) premultiply_values(t, sum, chunks.length(rank_), size_);
  MpiRequestQueue::Stages stages;
  stages.on_requests_done = [scratch, sum, own_bytes, slot_of_request,
                             length = chunks.length(rank_), t, op,
                             ranks = size_](std::span<const int> done) {
    std::vector<const void*> arrived;  // stage 1's received chunks (stage 2 needs nothing)
    for (int index : done) {
      const auto i = static_cast<std::size_t>(index);
      if (i < slot_of_request->size() && (*slot_of_request)[i] >= 0)
        arrived.push_back(scratch->data() +
                          own_bytes * static_cast<std::size_t>((*slot_of_request)[i]));
    }
    if (arrived.empty()) return;
    premultiply_arrived(arrived, t, op, length, ranks);
    reduce_values(t, op, sum, sum, arrived, length);
  };
  // Stage 2, all-gather: this rank's reduced chunk to every peer, theirs into place.
  stages.next_stage = [this, stage = 1, sum, output, chunks, element_bytes, t, op,
                       slot_of_request]() mutable -> std::vector<MPI_Request> {
    std::vector<MPI_Request> gather;
    if (stage++ != 1) return gather;
    if (postdivided(op, t)) postdivide_values(t, sum, chunks.length(rank_), size_);
    slot_of_request->clear();
    for (int k = 1; k < size_; ++k) {
      const int from = (rank_ - k + size_) % size_, to = (rank_ + k) % size_;
      if (chunks.length(from) > 0)
        gather.push_back(receive(output + chunks.offset(from) * element_bytes, chunks.length(from),
                                 t, from, kAllReduceGatherTag));
      if (chunks.length(rank_) > 0)
        gather.push_back(send(sum, chunks.length(rank_), t, to, kAllReduceGatherTag));
    }
    return gather;
  };
  queue_.push_staged(std::move(description), std::move(requests), std::move(stages),
                     [idle = idle_, scratch] { idle->push_back(std::move(*scratch)); });
}

}  // namespace collreplay
