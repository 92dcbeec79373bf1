// The host "stream" of the MPI backend: nonblocking MPI operations in issue order. An op is done
// when all its requests are done and its follow-up (e.g. moving an in-place result) has run;
// ops finish in issue order, so "everything issued before sequence number s is done" is one
// comparison. Polling is MPI_Testall, which is also what makes MPI progress.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
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
  };
  int rank_;
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::deque<PendingOp> pending_;
};

}  // namespace collreplay
