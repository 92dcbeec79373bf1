#include "bench/app/cross_rank.hpp"

#include <algorithm>

#include "collectives/mpi/mpi_check.hpp"
#include "common/errors.hpp"
#include "common/host_identity.hpp"

namespace collreplay {
namespace {

int comm_size(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_CHECK(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                           offsets.data(), MPI_CHAR, comm));
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

std::vector<RankIdentity> all_gather_identities(MPI_Comm comm, const std::string& device) {
  const std::vector<std::string> hosts = all_gather_strings(comm, host_name());
  const std::vector<std::string> devices = all_gather_strings(comm, device);
  std::vector<RankIdentity> identities;
  for (std::size_t r = 0; r < hosts.size(); ++r) identities.push_back({hosts[r], devices[r]});
  return identities;
}

std::vector<CrossRankStat> gather_stats_to_root(MPI_Comm comm, std::span<const double> local) {
  const int size = comm_size(comm);
  const bool root = comm_rank(comm) == 0;
  std::vector<double> all(root ? local.size() * size : 0);
  MPI_CHECK(MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
                       static_cast<int>(local.size()), MPI_DOUBLE, 0, comm));
  if (!root) return {};
  return summarize_across_ranks(all, size, local.size());
}

std::vector<std::string> gather_strings_to_root(MPI_Comm comm, const std::string& mine) {
  const int size = comm_size(comm);
  const bool root = comm_rank(comm) == 0;
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(root ? size : 0), offsets(root ? size : 0);
  MPI_CHECK(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  int total = 0;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(root ? std::max(total, 1) : 0);
  MPI_CHECK(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                        MPI_CHAR, 0, comm));
  std::vector<std::string> result;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r)
    result.emplace_back(all.data() + offsets[r], lengths[r]);
  return result;
}

double max_across_ranks(MPI_Comm comm, double value) {
  double result = value;
  MPI_CHECK(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm));
  return result;
}

}  // namespace collreplay
