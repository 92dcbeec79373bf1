#include "bench/app/cross_rank.hpp"

#include "collectives/mpi/mpi_check.hpp"
#include "collectives/mpi/mpi_watched.hpp"
#include "common/host_identity.hpp"

namespace collreplay {
std::vector<RankIdentity> all_gather_identities(MPI_Comm comm, const std::string& device,
                                                double timeout_s) {
  const std::vector<std::string> hosts = all_gather_strings(comm, host_name(), timeout_s);
  const std::vector<std::string> devices = all_gather_strings(comm, device, timeout_s);
  std::vector<RankIdentity> identities;
  for (std::size_t r = 0; r < hosts.size(); ++r) identities.push_back({hosts[r], devices[r]});
  return identities;
}

std::vector<std::vector<double>> gather_rows_to_root(MPI_Comm comm, std::span<const double> local,
                                                     double timeout_s) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const bool root = rank == 0;
  const std::size_t n = local.size();
  std::vector<double> all(root ? n * size : 0);
  MPI_Request request;
  MPI_CHECK(MPI_Igather(local.data(), static_cast<int>(n), MPI_DOUBLE, all.data(),
                        static_cast<int>(n), MPI_DOUBLE, 0, comm, &request));
  wait_request(request, timeout_s, "the cross-rank gather of times");
  std::vector<std::vector<double>> rows;
  for (int r = 0; root && r < size; ++r)
    rows.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(r * n),
                      all.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
  return rows;
}

std::vector<CrossRankStat> gather_stats_to_root(MPI_Comm comm, std::span<const double> local,
                                                double timeout_s) {
  const std::vector<std::vector<double>> rows = gather_rows_to_root(comm, local, timeout_s);
  if (rows.empty()) return {};
  std::vector<double> all;
  for (const std::vector<double>& row : rows) all.insert(all.end(), row.begin(), row.end());
  return summarize_across_ranks(all, static_cast<int>(rows.size()), local.size());
}

bool same_size_on_every_rank(MPI_Comm comm, std::size_t n, double timeout_s) {
  const double value = static_cast<double>(n);
  // Both reductions run on every rank before either is compared.
  const double largest = max_across_ranks(comm, value, timeout_s);
  const double smallest = -max_across_ranks(comm, -value, timeout_s);
  return largest == smallest;
}

}  // namespace collreplay
