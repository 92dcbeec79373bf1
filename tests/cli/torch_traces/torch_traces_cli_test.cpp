// The trace fixtures taken from real torch 2.11 jobs (sweeps/gpu/reference/traced_jobs.py on
// H100s: DDP, FSDP2 and HSDP with ranks sharing one GPU as separate NCCL hosts, the pipeline and
// the MoE job with a GPU per rank; trimmed by trim_trace.py): `replay
// --dry-run --trace` imports each and lists every collective the job issued, with the sizes,
// dtypes and groups torch recorded.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/results_fixtures.hpp"
#include "tests/support/subprocess.hpp"

namespace collreplay::cli_test {
namespace {

std::string fixture(const std::string& sub) { return test_support::fixtures("traces", sub); }

// Lines of the dry run's op table that name `what`.
int count_of(const std::string& out, const std::string& what) {
  int n = 0;
  for (std::size_t at = out.find(what); at != std::string::npos; at = out.find(what, at + 1)) ++n;
  return n;
}

struct Expected {
  std::string collective;
  int count;
};

class TorchTraces : public ScratchDirTest {
 protected:
  void expect_listing(const std::string& trace, const std::string& header,
                      const std::vector<Expected>& collectives) {
    const Outcome r = run((bin_dir() / "replay").string() + " --dry-run --trace " + trace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(header), std::string::npos) << r.out;
    for (const Expected& e : collectives)
      EXPECT_EQ(count_of(r.out, " " + e.collective + " "), e.count) << e.collective << "\n"
                                                                     << r.out;
  }
};

// DDP world 2: its module buffers broadcast from rank 0 at each forward, its gradient buckets as
// DDP rebuilt them (the first bucket small, the cap 25 MiB, the embedding alone) and the loss
// averaged across ranks (one fp32).
TEST_F(TorchTraces, DdpBucketsAndTheLossAllReduce) {
  expect_listing(fixture("torch_ddp/rank0.trace.json"), "rank 0 of 2",
                 {{"broadcast 128 B fp32 world", 1},
                  {"all_reduce 8718080 B bf16 world", 1},
                  {"all_reduce 29824768 B bf16 world", 1},
                  {"all_reduce 293377792 B bf16 world", 1},
                  {"all_reduce 4 B fp32 world", 1}});
}

// FSDP2 world 2 with dist.barrier() before each step and three profiled steps: the median step
// is replayed, and the barrier is an all-reduce of one fp32 element.
TEST_F(TorchTraces, Fsdp2BarrierAndTheMedianOfThreeSteps) {
  expect_listing(fixture("torch_fsdp2/rank0.trace.json"), "ProfilerStep#",
                 {{"all_reduce 4 B fp32 world", 1},
                  {"all_gather 272271104 B bf16 world", 1},
                  {"all_gather 29824768 B bf16 world", 4},
                  {"reduce_scatter 272271104 B bf16 world", 1},
                  {"reduce_scatter 29824768 B bf16 world", 2}});
}

// HSDP on a 2 x 2 mesh: gathers and reduce-scatters on the shard groups (consecutive pairs),
// the reduced shards all-reduced on the replicate groups (every other rank).
TEST_F(TorchTraces, HsdpShardAndReplicateGroups) {
  expect_listing(fixture("torch_hsdp/rank0.trace.json"), "of 4",
                 {{"all_gather 272271104 B bf16 strided(2,1)", 1},
                  {"all_gather 29824768 B bf16 strided(2,1)", 4},
                  {"reduce_scatter 29824768 B bf16 strided(2,1)", 2},
                  {"all_reduce 136135552 B bf16 strided(2,2)", 1},
                  {"all_reduce 14912384 B bf16 strided(2,2)", 2}});
}

// A Mixtral-style MoE layer written by tensorboard_trace_handler(use_gzip=True): the folder of
// *.pt.trace.json.gz files, the routing counts exchanged, then dispatch and combine with the
// uneven per-rank splits of top-2 routing.
TEST_F(TorchTraces, MoeUnevenAllToAllFromAGzipFolder) {
  expect_listing(fixture("torch_moe"), "rank 0 of 2",
                 {{"all_to_all 32 B fp32 world", 2},
                  {"all_to_allv 1835008 B bf16 world", 4},
                  {"all_to_allv 1858304 B bf16 world", 2},
                  {"all_to_allv 1870848 B bf16 world", 2}});
}

// Two pipeline stages (GPipe, 4 micro-batches): stage 0 sends each micro-batch's activations to
// stage 1 and receives their gradients back; stage 1's loss broadcast for stage 0's log line.
TEST_F(TorchTraces, PipelineSendRecvBetweenStages) {
  expect_listing(fixture("torch_pipeline/rank0.trace.json"), "rank 0 of 2",
                 {{"send 7340032 B bf16 world", 4},
                  {"recv 7340032 B bf16 world", 4},
                  {"broadcast 4 B fp32 world", 1}});
}

// Each fixture's ranks were traced over the same step: replayed one trace per rank, their
// collectives pair up and the step runs (host backend, modeled compute).
TEST_F(TorchTraces, EveryFixtureReplaysWithATracePerRank) {
  const std::vector<std::pair<std::string, int>> jobs = {
      {"torch_ddp/rank%d.trace.json", 2},     {"torch_fsdp2/rank%d.trace.json", 2},
      {"torch_hsdp/rank%d.trace.json", 4},    {"torch_pipeline/rank%d.trace.json", 2},
      {"torch_moe", 2}};
  for (const auto& [trace, ranks] : jobs) {
    const Outcome r = run(mpirun_command() + " -np " + std::to_string(ranks) + " " +
                          (bin_dir() / "replay").string() +
                          " --backend mpi --compute model:h100 --steps 1 --warmup 0 --timeout 60" +
                          " --micro-batch 1 --seq 512 --trace " + fixture(trace) + " --out " +
                          (dir_ / "r.jsonl").string());
    EXPECT_EQ(r.exit_code, 0) << trace << "\n" << r.err;
    EXPECT_EQ(read_jsonl(dir_ / "r.jsonl").empty(), false) << trace;
    fs::remove(dir_ / "r.jsonl");
  }
}

// Per-rank traces of different steps or jobs (here DDP's rank 0 beside FSDP2's rank 1) would pair
// the wrong collectives: every rank refuses before the first one, exit 2.
TEST_F(TorchTraces, RanksWithDifferentCollectivesAreRefused) {
  fs::copy_file(fixture("torch_ddp/rank0.trace.json"), dir_ / "rank0.trace.json");
  fs::copy_file(fixture("torch_fsdp2/rank1.trace.json"), dir_ / "rank1.trace.json");
  const Outcome r = run(mpirun_command() + " -np 2 " + (bin_dir() / "replay").string() +
                        " --backend mpi --compute model:h100 --steps 1 --warmup 0 --timeout 60" +
                        " --trace " + (dir_ / "rank%d.trace.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the ranks' schedules issue different collectives"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace collreplay::cli_test
