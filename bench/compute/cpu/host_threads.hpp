// Host threading sanity: a rank on the host backend runs its BLAS threads plus one thread that
// polls MPI; more of those than cores and the measured overlap is the scheduler's, not the
// hardware's. The check is pure so it can be tested; usable_cores() reads the affinity mask.
#pragma once
#include <string>

namespace collreplay {

// Cores this process may run on (sched_getaffinity), at least 1.
int usable_cores();

// "" when ranks_on_node x (compute_threads + 1) fits in `cores`, else one warning line.
std::string oversubscription_warning(int ranks_on_node, int compute_threads, int cores);

}  // namespace collreplay
