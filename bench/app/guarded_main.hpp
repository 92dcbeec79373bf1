// The one catch site: every executable's main() is `return guarded_main(argc, argv, run);`.
// It maps the exceptions of common/errors.hpp to their exit codes and prints one line:
//   <program>: error: <what>
// Usage errors are the same on every rank, so only rank 0 prints them and every rank finalizes
// MPI and exits 2. Any other error is printed by the rank that hit it (with its rank and host)
// and, when other ranks may be waiting on it, brings the job down with MPI_Abort.
#pragma once
#include <functional>

namespace collreplay {

int guarded_main(int argc, char** argv, const std::function<int(int, char**)>& body);

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
