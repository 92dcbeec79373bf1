#include "bench/app/cross_rank.hpp"

#include <unistd.h>

#include <algorithm>

#include "common/errors.hpp"

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

void check_mpi(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw RuntimeError(std::string(call) + " failed");
}

// Fixed-width rows keep the gather a single MPI_Allgather.
std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  constexpr std::size_t kWidth = 256;
  std::string padded = mine.substr(0, kWidth - 1);
  padded.resize(kWidth, '\0');
  const int size = comm_size(comm);
  std::vector<char> all(kWidth * size);
  check_mpi(MPI_Allgather(padded.data(), kWidth, MPI_CHAR, all.data(), kWidth, MPI_CHAR, comm),
            "MPI_Allgather");
  std::vector<std::string> result;
  for (int r = 0; r < size; ++r) result.emplace_back(all.data() + r * kWidth);
  return result;
}

}  // namespace

std::string this_host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "?";
  return host;
}

std::vector<RankIdentity> all_gather_identities(MPI_Comm comm, const std::string& device) {
  const std::vector<std::string> hosts = all_gather_strings(comm, this_host_name());
  const std::vector<std::string> devices = all_gather_strings(comm, device);
  std::vector<RankIdentity> identities;
  for (std::size_t r = 0; r < hosts.size(); ++r) identities.push_back({hosts[r], devices[r]});
  return identities;
}

std::vector<CrossRankStat> gather_stats_to_root(MPI_Comm comm, std::span<const double> local) {
  const int size = comm_size(comm);
  const bool root = comm_rank(comm) == 0;
  std::vector<double> all(root ? local.size() * size : 0);
  check_mpi(MPI_Gather(local.data(), static_cast<int>(local.size()), MPI_DOUBLE, all.data(),
                       static_cast<int>(local.size()), MPI_DOUBLE, 0, comm),
            "MPI_Gather");
  if (!root) return {};
  return summarize_across_ranks(all, size, local.size());
}

std::vector<std::string> gather_strings_to_root(MPI_Comm comm, const std::string& mine) {
  const int size = comm_size(comm);
  const bool root = comm_rank(comm) == 0;
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(root ? size : 0), offsets(root ? size : 0);
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  int total = 0;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(root ? std::max(total, 1) : 0);
  check_mpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                        MPI_CHAR, 0, comm),
            "MPI_Gatherv");
  std::vector<std::string> result;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r)
    result.emplace_back(all.data() + offsets[r], lengths[r]);
  return result;
}

double max_across_ranks(MPI_Comm comm, double value) {
  double result = value;
  check_mpi(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return result;
}

}  // namespace collreplay
