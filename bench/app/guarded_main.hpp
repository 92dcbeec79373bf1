// The one catch site: every executable's main() is `return guarded_main(argc, argv, run);`.
// It maps the exceptions of common/errors.hpp to their exit codes and prints one line:
//   <program>: error: <what>
// Usage errors (and transport mismatch, preflight) are meant to be the same on every rank: the
// ranks first check that every rank failed (all_ranks_failed_within); then only rank 0 prints
// and every rank finalizes MPI and exits with the code. When a rank fails alone (out of memory,
// a file only it cannot read) the others are elsewhere and the check times out: that rank prints
// (with its rank and host) and brings the job down with MPI_Abort, like any other error.
#pragma once
#include <functional>

namespace collreplay {

int guarded_main(int argc, char** argv, const std::function<int(int, char**)>& body);

// True when every rank of MPI_COMM_WORLD calls this within `window_s` of this rank's call: a
// failure all ranks share. Point-to-point on a reserved tag, so it never matches the collectives
// that ranks which did not fail may be waiting in. False on one rank: true.
bool all_ranks_failed_within(double window_s);

// This process's rank as the launcher (mpirun, srun) told it, usable before MPI_Init; 0 when
// started by hand.
int launcher_rank();

// MPI_Init_thread(FUNNELED) on construction, MPI_Finalize on normal destruction. While an
// exception unwinds it leaves MPI alone: guarded_main decides between finalize and abort.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

}  // namespace collreplay
