#include "collectives/mpi/mpi_request_queue.hpp"

#include <sched.h>

#include <cstdio>

#include "collectives/mpi/mpi_check.hpp"
#include "common/errors.hpp"

namespace collreplay {

MpiRequestQueue::~MpiRequestQueue() {
  // Requests still pending here belong to an op that timed out; the job is being torn down
  // (guarded_main aborts), so they are left to MPI_Abort rather than waited for.
}

std::uint64_t MpiRequestQueue::push(std::string description, std::vector<MPI_Request> requests,
                                    std::function<void()> on_done) {
  ++issued_;
  pending_.push_back(
      {issued_, std::move(description), std::move(requests), std::move(on_done), MPI_Wtime(), {}});
  return issued_;
}

std::uint64_t MpiRequestQueue::push_staged(std::string description,
                                           std::vector<MPI_Request> first_stage, Stages stages,
                                           std::function<void()> on_done) {
  const std::uint64_t seq =
      push(std::move(description), std::move(first_stage), std::move(on_done));
  pending_.back().stages = std::move(stages);
  return seq;
}

bool MpiRequestQueue::stage_done(PendingOp& op) {
  if (op.requests.empty()) return true;
  const int n = static_cast<int>(op.requests.size());
  if (!op.stages.on_requests_done) {
    int done = 0;
    MPI_CHECK(MPI_Testall(n, op.requests.data(), &done, MPI_STATUSES_IGNORE));
    return done != 0;
  }
  std::vector<int> indices(op.requests.size());
  int completed = 0;
  MPI_CHECK(MPI_Testsome(n, op.requests.data(), &completed, indices.data(), MPI_STATUSES_IGNORE));
  if (completed == MPI_UNDEFINED) return true;  // every request was already done
  op.stages.on_requests_done(
      std::span<const int>(indices.data(), static_cast<std::size_t>(completed)));
  for (MPI_Request request : op.requests)
    if (request != MPI_REQUEST_NULL) return false;
  return true;
}

std::uint64_t MpiRequestQueue::progress() {
  while (!pending_.empty()) {
    PendingOp& op = pending_.front();
    if (!stage_done(op)) break;
    if (op.stages.next_stage) {
      op.requests = op.stages.next_stage();
      if (!op.requests.empty()) continue;
    }
    if (op.on_done) op.on_done();
    completed_ = op.seq;
    pending_.pop_front();
  }
  return completed_;
}

void MpiRequestQueue::wait_until(std::uint64_t seq, double timeout_seconds,
                                 const std::string& what_for) {
  const double start_s = MPI_Wtime();
  while (progress() < seq) {
    const double now_s = MPI_Wtime();
    if (timeout_seconds > 0 && now_s - start_s > timeout_seconds) {
      const PendingOp& op = pending_.front();
      char waited[96];
      std::snprintf(waited, sizeof waited, "%.1f s (limit %g s)", now_s - op.issued_at_s,
                    timeout_seconds);
      // MPI's nonblocking collectives do not say which peers are missing, so the message names
      // the op, its size and this rank; the other ranks' messages complete the picture.
      throw TimeoutError("timeout waiting for " + what_for + ": " + op.description +
                         " not complete on rank " + std::to_string(rank_) + " after " + waited +
                         "; some rank has not arrived");
    }
    // Yield, never sleep: nothing else runs on this thread, and MPI progresses only while it
    // is polled (multi-round schedules would stall for every sleep). Threads that poll beside
    // compute (the executor) back off instead: common/poll_backoff.hpp.
    sched_yield();
  }
}

}  // namespace collreplay
