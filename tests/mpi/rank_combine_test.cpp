// How ranks' times become the one a table shows (-a / --report): rank 0's own, the mean, the
// fastest or the slowest, sample by sample for the perf programs' per-op samples.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "bench/app/rank_stats.hpp"
#include "bench/perf/timing/perf_samples.hpp"

namespace collreplay {
namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// Rank r's samples: r + 1 and 10 - r, so the slowest and fastest rank differ per sample.
std::vector<double> samples_of_this_rank() {
  const double r = world_rank();
  return {r + 1, 10 - r};
}

TEST(RankCombine, SamplesCombineAsNcclTestsAverageModes) {
  const double n = world_size();
  // One rank: every mode is that rank's samples; two or more tell them apart.
  struct Case {
    RankReduce how;
    std::vector<double> expected;
  };
  const Case cases[] = {
      {RankReduce::rank0, {1, 10}},
      {RankReduce::avg, {(n + 1) / 2, 10 - (n - 1) / 2}},
      {RankReduce::min, {1, 10 - (n - 1)}},
      {RankReduce::max, {n, 10}},
  };
  for (const Case& c : cases) {
    std::vector<double> values = samples_of_this_rank();
    combine_samples_across_ranks(values, c.how, MPI_COMM_WORLD, 30);
    EXPECT_EQ(values, c.expected) << rank_reduce_name(c.how);  // on every rank alike
    EXPECT_EQ(combine_across_ranks(samples_of_this_rank()[0], c.how, MPI_COMM_WORLD), c.expected[0])
        << rank_reduce_name(c.how);
  }
  EXPECT_EQ(parse_rank_reduce("rank0"), RankReduce::rank0);
}

}  // namespace
}  // namespace collreplay
