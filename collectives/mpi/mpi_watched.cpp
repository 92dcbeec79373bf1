#include "collectives/mpi/mpi_watched.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "collectives/mpi/mpi_check.hpp"
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

double reduce_across_ranks(MPI_Comm comm, double value, MPI_Op op, double timeout_s) {
  all_reduce_in_place(comm, &value, 1, MPI_DOUBLE, op, timeout_s, "a cross-rank reduction");
  return value;
}

}  // namespace

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine,
                                            double timeout_s) {
  const int size = comm_size(comm);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
  MPI_Request request;
  MPI_CHECK(MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm, &request));
  wait_request(request, timeout_s, "the cross-rank gather of text lengths");
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Iallgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                            offsets.data(), MPI_CHAR, comm, &request));
  wait_request(request, timeout_s, "the cross-rank gather of text");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
  return out;
}

void wait_request(MPI_Request& request, double timeout_s, const std::string& what) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    int done = 0;
    MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if (timeout_s > 0 && std::chrono::duration<double>(Clock::now() - start).count() > timeout_s) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", timeout_s);
      throw TimeoutError(what + " did not finish within " + seconds +
                         " s (a rank stopped or failed before joining it)");
    }
    std::this_thread::yield();
  }
}

void throw_if_any_rank_has(MPI_Comm comm, const std::string& problem, double timeout_s) {
  constexpr int kMessageBytes = 1024;
  const int size = comm_size(comm), rank = comm_rank(comm);
  const double first = min_across_ranks(comm, problem.empty() ? size : rank, timeout_s);
  if (first >= size) return;
  std::vector<char> message(kMessageBytes, '\0');
  if (rank == static_cast<int>(first)) problem.copy(message.data(), kMessageBytes - 1);
  MPI_Request request;
  MPI_CHECK(
      MPI_Ibcast(message.data(), kMessageBytes, MPI_CHAR, static_cast<int>(first), comm, &request));
  wait_request(request, timeout_s, "agreeing on a usage error");
  throw UsageError(message.data());
}

std::vector<std::string> gather_strings_to_root(MPI_Comm comm, const std::string& mine,
                                                double timeout_s) {
  const int size = comm_size(comm);
  const bool root = comm_rank(comm) == 0;
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(root ? size : 0), offsets(root ? size : 0);
  MPI_Request request;
  MPI_CHECK(MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm, &request));
  wait_request(request, timeout_s, "the cross-rank gather of text");
  int total = 0;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<char> all(root ? std::max(total, 1) : 0);
  MPI_CHECK(MPI_Igatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                         MPI_CHAR, 0, comm, &request));
  wait_request(request, timeout_s, "the cross-rank gather of text");
  std::vector<std::string> result;
  for (int r = 0; r < static_cast<int>(lengths.size()); ++r)
    result.emplace_back(all.data() + offsets[r], lengths[r]);
  return result;
}

void all_reduce_in_place(MPI_Comm comm, void* values, int count, MPI_Datatype type, MPI_Op op,
                         double timeout_s, const std::string& what) {
  MPI_Request request;
  MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, values, count, type, op, comm, &request));
  wait_request(request, timeout_s, what);
}

double max_across_ranks(MPI_Comm comm, double value, double timeout_s) {
  return reduce_across_ranks(comm, value, MPI_MAX, timeout_s);
}

double min_across_ranks(MPI_Comm comm, double value, double timeout_s) {
  return reduce_across_ranks(comm, value, MPI_MIN, timeout_s);
}

}  // namespace collreplay
