// The host "stream" of the MPI backend: nonblocking MPI operations in issue order. An op is done
// when all its requests are done and its follow-up (e.g. moving an in-place result) has run;
// ops finish in issue order, so "everything issued before sequence number s is done" is one
// comparison. Polling is MPI_Testall, which is also what makes MPI progress. A staged op (the
// host's own reductions) may act on each request as it completes and post further stages.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace collreplay {

class MpiRequestQueue {
 public:
  explicit MpiRequestQueue(int rank) : rank_(rank) {}
  ~MpiRequestQueue();

  // Returns the op's sequence number (1, 2, ...). `description` names it in timeout messages.
  std::uint64_t push(std::string description, std::vector<MPI_Request> requests,
                     std::function<void()> on_done = {});
  // Callbacks of an op made of stages of requests.
  struct Stages {
    // Called with the indices (in its stage) of the requests found complete by one poll, in
    // ascending order, so that slices that arrived together are reduced in one pass while
    // others are still in flight; may be empty.
    std::function<void(std::span<const int>)> on_requests_done;
    // Called once all of a stage's requests are done: the next stage's requests, or none when
    // the op is complete. Runs only while the op is the oldest pending one, so stages of
    // different ops never interleave.
    std::function<std::vector<MPI_Request>()> next_stage;
  };
  std::uint64_t push_staged(std::string description, std::vector<MPI_Request> first_stage,
                            Stages stages, std::function<void()> on_done = {});
  // Tests the oldest ops; returns the highest sequence number up to which all ops are done.
  std::uint64_t progress();
  std::uint64_t issued() const { return issued_; }
  std::uint64_t completed() const { return completed_; }
  // Polls until every op up to `seq` is done. After `timeout_seconds` (0: never) throws
  // TimeoutError naming `what_for` and the oldest op still pending on this rank.
  void wait_until(std::uint64_t seq, double timeout_seconds, const std::string& what_for);

 private:
  struct PendingOp {
    std::uint64_t seq;
    std::string description;
    std::vector<MPI_Request> requests;
    std::function<void()> on_done;
    double issued_at_s;
    Stages stages;
  };
  // True once every request of the op's current stage is done.
  static bool stage_done(PendingOp& op);
  int rank_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::deque<PendingOp> pending_;
};

}  // namespace collreplay
