#include "bench/replay/flops/rank_flops.hpp"

#include <cmath>
#include <cstddef>
#include <limits>

#include "collectives/mpi/mpi_watched.hpp"

namespace collreplay {

std::vector<StepFlops> all_ranks_flops(MPI_Comm comm, const StepFlops& mine, double timeout_s) {
  int rank = 0, world = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &world);
  // Each rank fills its own pair, the others' stay 0, and the sum hands every rank all of them;
  // an unknown figure travels as NaN.
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> pairs(2 * static_cast<std::size_t>(world), 0.0);
  const std::size_t at = 2 * static_cast<std::size_t>(rank);
  pairs[at] = mine.model.value_or(kUnknown);
  pairs[at + 1] = mine.hardware.value_or(kUnknown);
  all_reduce_in_place(comm, pairs.data(), static_cast<int>(pairs.size()), MPI_DOUBLE, MPI_SUM,
                      timeout_s, "the ranks' step FLOPs");
  std::vector<StepFlops> all(static_cast<std::size_t>(world));
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!std::isnan(pairs[2 * r])) all[r].model = pairs[2 * r];
    if (!std::isnan(pairs[2 * r + 1])) all[r].hardware = pairs[2 * r + 1];
  }
  return all;
}

}  // namespace collreplay
