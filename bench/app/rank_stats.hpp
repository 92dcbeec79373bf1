// Combining one number per rank into the number a table shows: the slowest rank (max, replay's
// default: it is what training feels), the mean (the perf programs' default, as nccl-tests' -a 1),
// the fastest, or rank 0's own (nccl-tests' -a 0).
#pragma once
#include <mpi.h>

#include <string>
#include <string_view>

namespace collreplay {

enum class RankReduce { max, avg, min, rank0 };

RankReduce parse_rank_reduce(std::string_view text);  // UsageError unless max|avg|min|rank0
std::string_view rank_reduce_name(RankReduce how);

// Collective over `comm`: every rank gets the combined value.
double combine_across_ranks(double value, RankReduce how, MPI_Comm comm);

}  // namespace collreplay
