// `replay -c`: runs every distinct collective of the schedule once, untimed, on the executor's
// own buffers with the seeded fill pattern, and checks the received data exactly on the host.
// all_gather, reduce_scatter, all_to_all and all_reduce use the op specs of collectives/; the
// schedule's all_to_allv counts are its own, so block (j -> r) element i carries
// fill_value(seed + r, j, i), which a receiver can check without knowing the senders' layouts.
#pragma once
#include <cstdint>

#include "bench/executor/executor.hpp"

namespace collreplay {

struct CheckSummary {
  int collectives_checked = 0;  // distinct (kind, group, dtype, counts)
  std::uint64_t elements_checked = 0;
};

// Throws DataMismatchError naming the first op with wrong elements.
CheckSummary check_replayed_collectives(const Executor& executor, std::uint64_t seed);

}  // namespace collreplay
