// The distributed optimizer (--plan ddp --distributed-optimizer, Megatron's layout and overlap),
// worked by hand on a one-layer Llama whose sizes make every padding rule show:
//   hidden 96, intermediate 160, 2 heads of 48, vocab 320, untied, no biases.
//   Reverse registration order: lm_head 30720, norm 96, post_attention_layernorm 96,
//   input_layernorm 96, down 15360, up 15360, gate 15360, o 9216, v 9216, k 9216, q 9216,
//   embed_tokens 30720 (144,672 parameters).
// At DP 5 and --ddp-bucket-size 40000, each start rounded up to 64 elements and each bucket's end
// to lcm(5, 128) = 640:
//   bucket 0: lm_head [0, 30720), norm [30720, 30816), post [30848, 30944), input
//             [30976, 31072), down [31104, 46464): 46464 >= 40000, end 46720;
//   bucket 1: up [46720, 62080), gate [62080, 77440), o [77440, 86656), v [86656, 95872):
//             49152 >= 40000, end 96000 (49,280);
//   bucket 2: k [96000, 105216), q [105216, 114432), embed [114432, 145152): end 145280 (49,280).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"

namespace collreplay {
namespace {

std::string tiny_model() {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "distopt_tiny.json";
  std::ofstream(path) << R"({"model_type":"llama","hidden_size":96,"intermediate_size":160,)"
                         R"("num_hidden_layers":1,"num_attention_heads":2,"vocab_size":320})";
  return path.string();
}

WorkloadRequest tiny(int world, int rank) {
  WorkloadRequest q = test::request(tiny_model(), world, "ddp");
  q.distributed_optimizer = true;
  q.ddp_bucket_size = 40000;
  q.reduce_dtype = "fp32";
  q.rank = rank;
  q.seq = 64;
  return q;
}

const ScheduleOp& op(const Schedule& s, const std::string& name) {
  for (const ScheduleOp& o : s.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no op " + name);
}

int index_of(const Schedule& s, const std::string& name) {
  return static_cast<int>(&op(s, name) - s.ops.data());
}

TEST(DistOpt, BucketsPaddedAsMegatronsBuffer) {
  const Schedule s = build_schedule(tiny(5, 0));
  const std::vector<std::uint64_t> padded = {46720, 49280, 49280};
  const std::vector<std::uint64_t> params = {30720 + 3 * 96 + 15360, 2 * 15360 + 2 * 9216,
                                             2 * 9216 + 30720};
  ASSERT_EQ(s.units.size(), 3u);
  std::uint64_t gathered = 0, scattered = 0;
  for (std::size_t b = 0; b < 3; ++b) {
    const UnitSummary& u = s.units[b];
    EXPECT_EQ(u.name, "bucket" + std::to_string(b));
    EXPECT_EQ(u.params, params[b]);
    EXPECT_EQ(u.allgather_bytes, padded[b] * 2);       // bf16 parameters
    EXPECT_EQ(u.reduce_scatter_bytes, padded[b] * 4);  // the fp32 gradient buffer
    EXPECT_EQ(u.shard_bytes, padded[b] / 5 * 2);
    EXPECT_EQ(u.allreduce_bytes, 0u);
    const std::string bucket = "bucket" + std::to_string(b);
    EXPECT_EQ(op(s, "ag.fwd." + bucket).collective().bytes, padded[b] * 2);
    EXPECT_EQ(op(s, "rs." + bucket).collective().bytes, padded[b] * 4);
    gathered += op(s, "ag.fwd." + bucket).collective().bytes;
    scattered += op(s, "rs." + bucket).collective().bytes;
  }
  // The whole padded buffer, 145,280 elements for 144,672 parameters, moves each way once.
  EXPECT_EQ(gathered, 145280u * 2);
  EXPECT_EQ(scattered, 145280u * 4);
  for (const ScheduleOp& o : s.ops) {
    if (o.is_collective()) {
      EXPECT_EQ(o.collective().group, GroupKind::world) << o.name;
    }
  }
}

// Reduce-scatters in backward as buckets complete (bucket 0, lm_head's, first); all-gathers in
// forward chained from the last bucket: the embedding's is issued at the step's start and the
// embedding's compute waits for it; its wait dispatches bucket 1's, also before any compute;
// layer 0's first pre-hook waits for bucket 1's and dispatches bucket 0's after the embedding.
TEST(DistOpt, GatherChainAndReduceScatterOrder) {
  const Schedule s = build_schedule(tiny(5, 0));
  const int ag2 = index_of(s, "ag.fwd.bucket2"), ag1 = index_of(s, "ag.fwd.bucket1");
  const int ag0 = index_of(s, "ag.fwd.bucket0");
  const int embed = index_of(s, "compute.fwd.s0.root");
  const int layer0 = index_of(s, "compute.fwd.s1.layers.0");
  EXPECT_LT(ag2, ag1);
  EXPECT_LT(ag1, embed);
  EXPECT_TRUE(op(s, "ag.fwd.bucket2").deps.empty());
  EXPECT_TRUE(op(s, "ag.fwd.bucket1").deps.empty());
  EXPECT_EQ(op(s, "ag.fwd.bucket0").deps, std::vector<int>{embed});
  EXPECT_EQ(op(s, "compute.fwd.s0.root").deps, std::vector<int>{ag2});
  EXPECT_EQ(op(s, "compute.fwd.s1.layers.0").deps, (std::vector<int>{ag1, ag0}));
  EXPECT_EQ(op(s, "ag.fwd.bucket1").hides_behind, embed);  // runs beside the embedding
  EXPECT_EQ(op(s, "ag.fwd.bucket0").hides_behind, -1);     // nothing between issue and use
  // Buckets 0 and 1 complete with layer 0's backward, bucket 2 (the embedding) with the root's.
  const int rs0 = index_of(s, "rs.bucket0"), rs1 = index_of(s, "rs.bucket1");
  const int layer0_bwd = index_of(s, "compute.bwd.s1.layers.0");
  EXPECT_LT(layer0, rs0);
  EXPECT_LT(rs0, rs1);
  EXPECT_LT(rs1, index_of(s, "rs.bucket2"));
  EXPECT_EQ(op(s, "rs.bucket0").deps, std::vector<int>{layer0_bwd});
  EXPECT_EQ(op(s, "rs.bucket1").deps, std::vector<int>{layer0_bwd});
  EXPECT_EQ(op(s, "rs.bucket2").deps, std::vector<int>{index_of(s, "compute.bwd.s0.root")});
}

// Gradient accumulation: the all-gathers open the first micro-batch, the reduce-scatters close
// the last (no_sync before it); the optimizer waits for them.
TEST(DistOpt, OnceAStepUnderGradientAccumulation) {
  WorkloadRequest q = tiny(5, 0);
  q.micro_batches = 3;
  const Schedule s = build_schedule(q);
  std::vector<std::string> comm;
  for (const ScheduleOp& o : s.ops)
    if (o.is_collective()) comm.push_back(o.name);
  const std::vector<std::string> want = {"mb0.ag.fwd.bucket2", "mb0.ag.fwd.bucket1",
                                         "mb0.ag.fwd.bucket0", "mb2.rs.bucket0",
                                         "mb2.rs.bucket1", "mb2.rs.bucket2"};
  EXPECT_EQ(comm, want);
  EXPECT_EQ(op(s, "optimizer.step").deps,
            (std::vector<int>{index_of(s, "mb2.rs.bucket0"), index_of(s, "mb2.rs.bucket1"),
                              index_of(s, "mb2.rs.bucket2")}));
}

// Rank 3's shard: bucket 0 [28032, 37376) holds the end of lm_head (2688), the three norms and
// down's first 6272; bucket 1 [76288, 86144) gate's last 1152 and o's first 8704; bucket 2
// [125568, 135424) 9856 of embed_tokens: 8 pieces, 28,960 elements of fp32 Adam.
TEST(DistOpt, OptimizerStepsTheRanksShard) {
  const Schedule s = build_schedule(tiny(5, 3));
  const ComputeOp& step = op(s, "optimizer.step").compute();
  bool adam = false;
  for (const KernelSlice& k : step.kernels) {
    EXPECT_EQ(k.elements, 28960u) << k.label;
    if (k.kind == KernelKind::multi_tensor) {
      adam = true;
      EXPECT_EQ(k.operand_element_bytes, 4u);  // fp32 main parameters and moments
      EXPECT_EQ(k.read_bytes, 4u * 28960 * 4);
    } else {
      EXPECT_EQ(k.launches, 8u) << k.label;  // a copy_ per piece
    }
  }
  EXPECT_TRUE(adam);
  // The copy back into the bf16 parameter buffer is the step's last kernel.
  EXPECT_EQ(step.kernels.back().write_bytes, 28960u * 2);
}

TEST(DistOpt, DataParallelGroupOfATensorParallelRank) {
  WorkloadRequest q = tiny(10, 0);
  q.tp = 2;  // heads 2, intermediate 160, vocab 320: all divide
  q.gpus_per_node = 2;
  const Schedule s = build_schedule(q);
  int collectives = 0;
  for (const ScheduleOp& o : s.ops) {
    if (!o.is_collective() || o.name.find("bucket") == std::string::npos) continue;
    ++collectives;
    EXPECT_EQ(o.collective().group, GroupKind::replicate) << o.name;  // the 5 ranks of a TP index
  }
  EXPECT_GT(collectives, 0);
}

TEST(DistOpt, DefaultBucketSizeIsMegatrons) {
  WorkloadRequest q = test::request("nemotron-4-15b", 16, "ddp");
  q.distributed_optimizer = true;
  q.tp = 4;
  q.layers = 2;
  // DP 4: 40M. lm_head alone (64000 x 6144 = 393,216,000); then the final norm, layer 1's norms,
  // down and up (6144 x 6144 each) reach it.
  Schedule s = build_schedule(q);
  EXPECT_EQ(s.units.at(0).params, 393216000u);
  EXPECT_EQ(s.units.at(1).params, 12288u + 24576 + 2 * 37748736);
  // DP 128 (world 512): 128M a bucket: the final norm, all of layer 1 (97,542,144), then layer
  // 0's norms and down_proj.
  q.world = 512;
  s = build_schedule(q);
  EXPECT_EQ(s.units.at(1).params, 12288u + 97542144 + 24576 + 37748736);
}

std::string error_of(WorkloadRequest q) {
  try {
    build_schedule(q);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(DistOpt, Refusals) {
  WorkloadRequest q = tiny(5, 0);
  q.plan = "fsdp2";
  EXPECT_NE(error_of(q).find("--distributed-optimizer needs --plan ddp"), std::string::npos);
  q = tiny(5, 0);
  q.distributed_optimizer = false;
  EXPECT_NE(error_of(q).find("--ddp-bucket-size needs --distributed-optimizer"), std::string::npos);
  q = tiny(5, 0);
  q.ddp_bucket_size = -1;
  EXPECT_NE(error_of(q).find("--ddp-bucket-size must not be negative"), std::string::npos);
  q = tiny(5, 0);
  q.grad_compression = "powersgd:4";
  EXPECT_NE(error_of(q).find("--grad-compression does not apply"), std::string::npos);
}

}  // namespace
}  // namespace collreplay
