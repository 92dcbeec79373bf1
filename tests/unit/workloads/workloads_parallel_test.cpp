// HSDP, tensor/sequence parallel and MoE meshes: per-op bytes derived here from the published
// shapes (FACTS.md) and PyTorch's / Megatron's rules, at sizes that need padding.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using test::request;
using test::unit;

// Qwen2.5-7B (FACTS.md).
constexpr std::uint64_t H = 3584, I = 18944, Q = 28 * 128, KV = 4 * 128, V = 152064;

std::uint64_t up(std::uint64_t n, std::uint64_t multiple) {
  return (n + multiple - 1) / multiple * multiple;
}

const ScheduleOp& op(const Schedule& s, const std::string& name) {
  for (const ScheduleOp& o : s.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no op " + name);
}

int index_of(const Schedule& s, const std::string& name) {
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST(Hsdp, Fsdp1PadsToTheShardGroupAndAllReducesTheShardAcrossReplicas) {
  WorkloadRequest q = request("qwen2.5-7b", 12);
  q.gpus_per_node = 6;  // shard group 6 (default: GPUs per node), 2 replicas
  q.sharding = "hybrid";
  const Schedule s = build_schedule(q);
  const std::uint64_t layer =
      Q * H + Q + 2 * (KV * H + KV) + H * Q + 3 * I * H + 2 * H;  // 233,057,792
  ASSERT_EQ(layer, 233057792u);
  const std::uint64_t padded = up(layer, 6);  // 233,057,796
  EXPECT_EQ(op(s, "ag.fwd.layers.3").collective().bytes, padded * 2);
  EXPECT_EQ(op(s, "ag.fwd.layers.3").collective().group, GroupKind::shard);
  EXPECT_EQ(op(s, "rs.layers.3").collective().bytes, padded * 2);
  const ScheduleOp& ar = op(s, "ar.layers.3");
  EXPECT_EQ(ar.collective().kind, CollectiveKind::all_reduce);
  EXPECT_EQ(ar.collective().group, GroupKind::replicate);
  EXPECT_EQ(ar.collective().bytes, padded / 6 * 2);
  // Right behind its reduce-scatter on the comm stream, meant to hide behind the same compute.
  EXPECT_EQ(index_of(s, "ar.layers.3"), index_of(s, "rs.layers.3") + 1);
  EXPECT_EQ(ar.hides_behind, op(s, "rs.layers.3").hides_behind);
  // It runs on the replicate group's stream, so it must wait for its own reduce-scatter (FSDP1's
  // reduced shard; FSDP2: all_reduce_stream.wait_stream(reduce_scatter_stream)), or it would
  // all-reduce a shard not yet reduced, beside the reduce-scatter, and hide time real runs spend.
  const std::vector<int>& deps = ar.deps;
  EXPECT_NE(std::find(deps.begin(), deps.end(), index_of(s, "rs.layers.3")), deps.end());
  const std::vector<int>& root_deps = op(s, "ar.root").deps;
  EXPECT_NE(std::find(root_deps.begin(), root_deps.end(), index_of(s, "rs.root")),
            root_deps.end());
  const std::uint64_t root = 2 * V * H + H;
  EXPECT_EQ(op(s, "ar.root").collective().bytes, up(root, 6) / 6 * 2);
  const ScheduleTotals t = schedule_totals(s);
  EXPECT_EQ(t.allreduces, 29u);
  EXPECT_EQ(t.allgathers, 57u);  // FULL_SHARD re-gathers in backward
  EXPECT_EQ(group_size(s, GroupKind::shard), 6);
  EXPECT_EQ(group_size(s, GroupKind::replicate), 2);
  EXPECT_EQ(unit(s, "layers.3").allreduce_bytes, padded / 6 * 2);
}

TEST(Hsdp, Fsdp2PadsEveryDim0AndZero2DropsBackwardGathers) {
  WorkloadRequest q = request("qwen2.5-7b", 12, "fsdp2");
  q.gpus_per_node = 6;
  q.sharding = "hybrid-zero2";
  q.reduce_dtype = "fp32";
  const Schedule s = build_schedule(q);
  const std::uint64_t layer = up(Q, 6) * H + up(Q, 6) + 2 * (up(KV, 6) * H + up(KV, 6)) +
                              up(H, 6) * Q + 2 * up(I, 6) * H + up(H, 6) * I + 2 * up(H, 6);
  EXPECT_EQ(op(s, "ag.fwd.layers.0").collective().bytes, layer * 2);
  EXPECT_EQ(op(s, "rs.layers.0").collective().bytes, layer * 4);
  EXPECT_EQ(op(s, "ar.layers.0").collective().bytes, layer / 6 * 4);
  EXPECT_EQ(op(s, "ar.layers.0").collective().dtype, DType::f32);
  const std::vector<int>& deps = op(s, "ar.layers.0").deps;
  EXPECT_NE(std::find(deps.begin(), deps.end(), index_of(s, "rs.layers.0")), deps.end());
  EXPECT_EQ(schedule_totals(s).allgathers, 29u);
}

TEST(Hsdp, ShardGroupMustDivideTheDataParallelRanks) {
  WorkloadRequest q = request("qwen2.5-7b", 16);
  q.sharding = "hybrid";
  q.shard_group = 6;
  EXPECT_THROW(build_schedule(q), UsageError);
  q.sharding = "full";
  q.shard_group = 4;
  EXPECT_THROW(build_schedule(q), UsageError);  // --shard-group needs hybrid
}

TEST(TensorParallel, SequenceParallelBytesCountsAndShardedShapes) {
  WorkloadRequest q = request("qwen2.5-7b", 6);
  q.gpus_per_node = 6;
  q.tp = 2;  // FSDP over 3 ranks with one TP index: padding to 3
  q.layers = 2;
  const Schedule s = build_schedule(q);
  const std::uint64_t layer =
      (Q / 2) * H + Q / 2 + 2 * ((KV / 2) * H + KV / 2) + H * (Q / 2) + 3 * (I / 2) * H + 2 * H;
  EXPECT_EQ(op(s, "ag.fwd.layers.1").collective().bytes, up(layer, 3) * 2);
  EXPECT_EQ(op(s, "ag.fwd.layers.1").collective().group, GroupKind::shard);
  EXPECT_EQ(group_size(s, GroupKind::shard), 3);
  // Every TP collective: the micro-batch's activations [1024 tokens x 3584] in bf16, on the
  // critical path. Per layer 2 all-gathers + 2 reduce-scatters in forward, recompute and
  // backward; the embedding's reduce-scatter and lm_head's all-gather (and their mirrors).
  const std::uint64_t activation = 1024 * H * 2;
  int ag = 0, rs = 0;
  for (const ScheduleOp& o : s.ops) {
    if (!o.is_collective() || o.collective().group != GroupKind::tp) continue;
    EXPECT_EQ(o.collective().bytes, activation) << o.name;
    EXPECT_EQ(o.hides_behind, -1) << o.name;
    ag += o.collective().kind == CollectiveKind::all_gather;
    rs += o.collective().kind == CollectiveKind::reduce_scatter;
  }
  EXPECT_EQ(ag, 6 * 2 + 2);
  EXPECT_EQ(rs, 6 * 2 + 2);
  EXPECT_EQ(s.tokens_per_step, 512u);  // the TP pair shares 1024 tokens
  // Column-parallel q_proj: [1792, 3584] over 1024 rows; attention over 14 local heads.
  bool q_proj = false, core = false;
  for (const ScheduleOp& o : s.ops)
    if (!o.is_collective())
      for (const GemmShape& g : o.compute().gemms) {
        if (g.label == "layers.0.self_attn.q_proj fwd") {
          q_proj = true;
          EXPECT_EQ(g.m, 1024);
          EXPECT_EQ(g.n, 1792);
          EXPECT_EQ(g.k, 3584);
        }
        if (g.label.rfind("layers.0.self_attn.core", 0) == 0) {
          core = true;
          EXPECT_EQ(g.batch, 14) << g.label;
        }
      }
  EXPECT_TRUE(q_proj && core);
  // The all-gather before attention feeds the attention segment directly.
  const int gather = index_of(s, "tp.ag.fwd.s2.layers.0.self_attn");
  ASSERT_GE(gather, 0);
  bool fed = false;
  for (const ScheduleOp& o : s.ops)
    for (int d : o.deps) fed = fed || (d == gather && o.name.rfind("compute.fwd.s2.", 0) == 0);
  EXPECT_TRUE(fed);
}

// Qwen2.5-7B's first two layers at TP 4 on one node of 8.
WorkloadRequest tp4_two_layers() {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.tp = 4;
  q.layers = 2;
  return q;
}

TEST(TensorParallel, WithoutSequenceParallelAllReducesAndAsyncHides) {
  WorkloadRequest q = tp4_two_layers();
  q.sequence_parallel = false;
  const Schedule s = build_schedule(q);
  int ar = 0;
  for (const ScheduleOp& o : s.ops)
    if (o.is_collective() && o.collective().group == GroupKind::tp) {
      EXPECT_EQ(o.collective().kind, CollectiveKind::all_reduce) << o.name;
      ++ar;
    }
  EXPECT_EQ(ar, 6 * 2 + 2);  // forward 2L+1, recompute 2L, backward 2L+1
  q.sequence_parallel = true;
  q.async_tp = true;
  const Schedule a = build_schedule(q);
  int hidden = 0;
  for (const ScheduleOp& o : a.ops)
    if (o.is_collective() && o.collective().group == GroupKind::tp && o.hides_behind >= 0) {
      EXPECT_FALSE(a.ops[o.hides_behind].is_collective());
      ++hidden;
    }
  EXPECT_GT(hidden, 20);
}

TEST(TensorParallel, MegatronGathersEachColumnInputAgainInBackward) {
  WorkloadRequest q = tp4_two_layers();
  q.activation_checkpointing = false;
  const Schedule torch_style = build_schedule(q);
  q.tp_style = "megatron";
  const Schedule s = build_schedule(q);
  // Attention's and the MLP's column GEMMs and lm_head: one all-gather each in backward, the size
  // of every TP collective (1024 tokens x 3584 in bf16), overlapping the item it gathers for.
  int regathers = 0;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& o = s.ops[i];
    if (!o.is_collective() || o.name.find(".input") == std::string::npos) continue;
    ++regathers;
    EXPECT_EQ(o.name.rfind("tp.ag.bwd.", 0), 0u) << o.name;
    EXPECT_EQ(o.collective().kind, CollectiveKind::all_gather);
    EXPECT_EQ(o.collective().group, GroupKind::tp);
    EXPECT_EQ(o.collective().bytes, 1024 * H * 2) << o.name;
    ASSERT_GE(o.hides_behind, 0) << o.name;
    EXPECT_FALSE(s.ops[o.hides_behind].is_collective());
    EXPECT_EQ(s.ops[o.hides_behind].phase, Phase::backward) << o.name;
  }
  EXPECT_EQ(regathers, 2 * 2 + 1);
  EXPECT_EQ(s.ops.size(), torch_style.ops.size() + 5);
  // Megatron's distributed optimizer comes with Megatron's layers: auto takes its style.
  q.tp_style = "auto";
  q.plan = "ddp";
  q.distributed_optimizer = true;
  int with_distopt = 0;
  for (const ScheduleOp& o : build_schedule(q).ops)
    with_distopt += o.is_collective() && o.name.find(".input") != std::string::npos;
  EXPECT_EQ(with_distopt, 2 * 2 + 1);
  q.tp_style = "deepspeed";
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(TensorParallel, RejectsSplitsThatDoNotDivide) {
  WorkloadRequest q = request("qwen2.5-7b", 16);
  q.tp = 8;  // 28 heads
  try {
    build_schedule(q);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("28 attention heads"), std::string::npos) << e.what();
  }
  q.tp = 3;
  q.world = 24;  // 8 GPUs per node
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(MoeMesh, Fsdp2StackedExpertsOnA7x2x2MeshPadBothGroups) {
  WorkloadRequest q = request("mixtral-8x7b", 28, "fsdp2");
  q.gpus_per_node = 4;
  q.mesh = "7x2x2";
  q.experts_layout = "stacked";
  q.layers = 1;
  q.seq = 512;
  const Schedule s = build_schedule(q);
  constexpr std::uint64_t h = 4096, inter = 14336, kv = 8 * 128, tp = 2, shard = 14;
  EXPECT_EQ(group_size(s, GroupKind::shard), 14);
  EXPECT_EQ(group_size(s, GroupKind::expert), 2);
  EXPECT_EQ(group_size(s, GroupKind::data_parallel), 7);
  EXPECT_EQ(group_size(s, GroupKind::tp), 2);
  // Dense: q/k/v column-split, o row-split, router [8, 4096] and norms whole; dim 0 padded to 14.
  const std::uint64_t dense = up(h / tp, shard) * h + 2 * up(kv / tp, shard) * h +
                              up(h, shard) * (h / tp) + up(8, shard) * h + 2 * up(h, shard);
  EXPECT_EQ(op(s, "ag.fwd.layers.0").collective().bytes, dense * 2);
  // Experts: 4 per rank (ep 2), stacked [4, 2I/tp, h] and [4, h, I/tp]; dim 0 of 4 pads to 7.
  const ScheduleOp& experts = op(s, "ag.fwd.layers.0.mlp.experts");
  EXPECT_EQ(experts.collective().group, GroupKind::data_parallel);
  EXPECT_EQ(experts.collective().bytes, (7 * (2 * inter / tp) * h + 7 * h * (inter / tp)) * 2);
  // Dispatch: the TP group's 512 tokens x top-2 rows of 4096 bf16, over the expert group.
  EXPECT_EQ(op(s, "a2a.dispatch.fwd.layers.0").collective().bytes, 512u * 2 * h * 2);
}

// torch's select_backward of `gate_up_proj[e]` builds a zero gradient of the whole parameter the
// rank holds: with expert parallelism 2 that stacks the rank's 4 experts, not all 8.
TEST(MoeMesh, StackedExpertGradientsAreAsLargeAsTheRanksOwnStack) {
  constexpr std::uint64_t h = 4096, inter = 14336;
  for (const int ep : {1, 2}) {
    WorkloadRequest q = request("mixtral-8x7b", 2, "fsdp2");
    q.ep = ep;
    q.experts_layout = "stacked";
    q.layers = 1;
    q.seq = 512;
    const Schedule s = build_schedule(q);
    std::uint64_t zeros = 0, kernels = 0;
    for (const ScheduleOp& o : s.ops)
      if (!o.is_collective())
        for (const KernelSlice& k : o.compute().kernels)
          if (k.label.find("gate_up_proj: select backward: zeros") != std::string::npos) {
            zeros = k.write_bytes;
            ++kernels;
          }
    ASSERT_GT(kernels, 0u) << "ep " << ep;
    EXPECT_EQ(zeros, (8u / ep) * 2 * inter * h * 2) << "ep " << ep;
  }
}

TEST(MoeMesh, ProductMustBeTheWorldAndMatchEpAndTp) {
  WorkloadRequest q = request("mixtral-8x7b", 8);
  q.mesh = "2x4x2";
  EXPECT_THROW(build_schedule(q), UsageError);
  q.world = 16;
  q.ep = 2;
  EXPECT_THROW(build_schedule(q), UsageError);
  q.ep = 1;
  q.mesh = "2x4";
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(MoeMesh, GroupsFollowTheDpEpTpLayout) {
  const MeshLayout m{16, 8, 2, 4, 0};  // 2x4x2
  auto members = [&](GroupKind g, int rank) {
    std::set<int> out;
    for (int r = 0; r < 16; ++r)
      if (mesh_group_color(m, g, r) == mesh_group_color(m, g, rank)) out.insert(r);
    return out;
  };
  EXPECT_EQ(members(GroupKind::tp, 5), (std::set<int>{4, 5}));
  EXPECT_EQ(members(GroupKind::expert, 5), (std::set<int>{1, 3, 5, 7}));
  EXPECT_EQ(members(GroupKind::data_parallel, 5), (std::set<int>{5, 13}));
  EXPECT_EQ(members(GroupKind::shard, 5), (std::set<int>{1, 3, 5, 7, 9, 11, 13, 15}));
  for (GroupKind g : {GroupKind::tp, GroupKind::expert, GroupKind::data_parallel, GroupKind::shard})
    EXPECT_EQ(static_cast<int>(members(g, 0).size()), mesh_group_size(m, g));
}

}  // namespace
}  // namespace collreplay
