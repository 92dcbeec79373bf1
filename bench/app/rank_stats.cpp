#include "bench/app/rank_stats.hpp"

#include "collectives/mpi/mpi_check.hpp"
#include "common/errors.hpp"

namespace collreplay {

RankReduce parse_rank_reduce(std::string_view text) {
  if (text == "max") return RankReduce::max;
  if (text == "avg") return RankReduce::avg;
  if (text == "min") return RankReduce::min;
  if (text == "rank0") return RankReduce::rank0;
  throw UsageError("--report '" + std::string(text) + "' is not max, avg, min or rank0");
}

std::string_view rank_reduce_name(RankReduce how) {
  switch (how) {
    case RankReduce::max: return "max";
    case RankReduce::avg: return "avg";
    case RankReduce::min: return "min";
    case RankReduce::rank0: return "rank0";
  }
  return "?";
}

double combine_across_ranks(double value, RankReduce how, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (how == RankReduce::rank0 && rank != 0) value = 0;  // the sum is then rank 0's value
  const MPI_Op op = how == RankReduce::max ? MPI_MAX : how == RankReduce::min ? MPI_MIN : MPI_SUM;
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, op, comm));
  if (how == RankReduce::avg) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    value /= size;
  }
  return value;
}

}  // namespace collreplay
