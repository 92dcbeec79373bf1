// The harness's own MPI traffic between ranks (never a measured op): text gathers, agreement on a
// value or on a usage error. Each is a nonblocking MPI collective polled under `timeout_s`
// (0: wait for ever), so that a rank that died or stopped turns into a TimeoutError on the
// others instead of a hang.
#pragma once
#include <mpi.h>

#include <string>
#include <vector>

namespace collreplay {

// Waits for a nonblocking MPI request, throwing TimeoutError naming `what` after timeout_s.
void wait_request(MPI_Request& request, double timeout_s, const std::string& what);

// MPI_Allreduce in place of `count` values, under the watchdog: TimeoutError naming `what`.
void all_reduce_in_place(MPI_Comm comm, void* values, int count, MPI_Datatype type, MPI_Op op,
                         double timeout_s, const std::string& what);

// The largest of every rank's `value`, on every rank (used so that all ranks agree on when a
// pass is stable and on a calibrated scale).
double max_across_ranks(MPI_Comm comm, double value, double timeout_s = 0);
double min_across_ranks(MPI_Comm comm, double value, double timeout_s = 0);

// Every rank's `mine`, any length, in rank order, on every rank (collective over `comm`).
std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine,
                                            double timeout_s = 0);

// Every rank's `mine` to rank 0, in rank order (any length); empty on other ranks.
std::vector<std::string> gather_strings_to_root(MPI_Comm comm, const std::string& mine,
                                                double timeout_s = 0);

// Every rank throws the same UsageError when any rank has a problem (the lowest such rank's
// message): bad input seen by some ranks only must still end every rank alike.
void throw_if_any_rank_has(MPI_Comm comm, const std::string& problem, double timeout_s = 0);

}  // namespace collreplay
