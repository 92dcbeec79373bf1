// Cross-rank gathering: every rank's times and identity to rank 0, where the slowest rank sets
// the step (training waits for its slowest rank). Built on the watched MPI calls of
// collectives/mpi/mpi_watched.hpp: a rank that died or stopped turns into a TimeoutError on the
// others instead of a hang.
#pragma once
#include <mpi.h>

#include <span>
#include <string>
#include <vector>

#include "bench/app/stats.hpp"

namespace collreplay {

struct RankIdentity {
  std::string host;
  std::string device;
};

// Every rank learns every rank's host and device (collective over `comm`).
std::vector<RankIdentity> all_gather_identities(MPI_Comm comm, const std::string& device,
                                                double timeout_s = 0);

// Rank 0 receives every rank's `local` (the same size everywhere), one row per rank in rank
// order; other ranks return an empty vector.
std::vector<std::vector<double>> gather_rows_to_root(MPI_Comm comm, std::span<const double> local,
                                                     double timeout_s = 0);

// Rank 0 receives one row of `local.size()` values per rank (every rank passes the same size)
// and returns their per-column stats; other ranks return an empty vector.
std::vector<CrossRankStat> gather_stats_to_root(MPI_Comm comm, std::span<const double> local,
                                                double timeout_s = 0);

// Whether every rank of `comm` passes the same `n` (collective: every rank must call it).
bool same_size_on_every_rank(MPI_Comm comm, std::size_t n, double timeout_s = 0);

}  // namespace collreplay
