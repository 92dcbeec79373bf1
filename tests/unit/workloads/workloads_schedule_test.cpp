// Collective counts per step for each plan, wrap and sharding; dependencies; FLOPs.
#include <gtest/gtest.h>

#include <set>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using test::request;

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

TEST(WorkloadsSchedule, Qwen7bFsdp1BlockFullShardAtWorld16) {
  const Schedule s = build_schedule(request("qwen2.5-7b", 16));
  const ScheduleTotals t = schedule_totals(s);
  EXPECT_EQ(t.allgathers, 2u * 28 + 1);
  EXPECT_EQ(t.reduce_scatters, 28u + 1);
  EXPECT_EQ(t.alltoalls, 0u);
  EXPECT_EQ(t.allgather_bytes, 2ull * 28 * 466115584 + 2179996672ull);
  EXPECT_EQ(op(s, "ag.fwd.layers.3").collective().bytes, 466115584u);
  EXPECT_EQ(op(s, "ag.fwd.root").collective().bytes, 2179996672u);
}

TEST(WorkloadsSchedule, CountsPerPlanWrapSharding) {
  struct Case {
    std::string plan, wrap, sharding;
    std::uint64_t ag, rs;
  };
  const Case cases[] = {
      {"fsdp1", "block", "full", 57, 29},
      {"fsdp2", "block", "full", 57, 29},
      {"fsdp1", "block", "grad-op", 29, 29},
      {"fsdp2", "submodule", "full", 1 + 2 * 84, 85},
      {"fsdp2", "submodule", "grad-op", 85, 85},
      // size:1e8: embed_tokens, model (attention + norms), 28 mlps, lm_head; the root keeps
      // nothing.
      {"fsdp1", "size", "full", 2 * 31, 31},
      {"fsdp1", "size:1e8", "grad-op", 31, 31},
  };
  for (const Case& c : cases) {
    WorkloadRequest q = request("qwen2.5-7b", 12, c.plan, c.wrap);
    q.sharding = c.sharding;
    const ScheduleTotals t = schedule_totals(build_schedule(q));
    EXPECT_EQ(t.allgathers, c.ag) << c.plan << " " << c.wrap << " " << c.sharding;
    EXPECT_EQ(t.reduce_scatters, c.rs) << c.plan << " " << c.wrap << " " << c.sharding;
  }
}

TEST(WorkloadsSchedule, SizePolicyKeepsRemainderWithParent) {
  const Schedule s = build_schedule(request("qwen2.5-7b", 16, "fsdp1", "size"));
  std::set<std::string> names;
  for (const auto& u : s.units) names.insert(u.name);
  EXPECT_TRUE(names.count("model") && names.count("embed_tokens") && names.count("lm_head") &&
              names.count("layers.0.mlp") && names.count("layers.27.mlp"));
  EXPECT_FALSE(names.count("layers.0") || names.count("layers.0.self_attn"));
  EXPECT_EQ(test::unit(s, "root").params, 0u);
  EXPECT_EQ(test::unit(s, "model").params, 28u * (29364736 + 7168) + 3584);
}

TEST(WorkloadsSchedule, MicroBatchesRepeatGatherAndReduceScatter) {
  WorkloadRequest q = request("qwen2.5-7b", 16);
  q.micro_batches = 3;
  const ScheduleTotals t = schedule_totals(build_schedule(q));
  EXPECT_EQ(t.allgathers, 3u * 57);
  EXPECT_EQ(t.reduce_scatters, 3u * 29);
}

TEST(WorkloadsSchedule, MixtralExpertParallelCounts) {
  WorkloadRequest q = request("mixtral-8x7b", 16);
  q.ep = 8;
  ScheduleTotals t = schedule_totals(build_schedule(q));
  // FSDP: root once, layer + experts units twice each; plus one token-count gather per dispatch
  // (forward and recompute).
  EXPECT_EQ(t.allgathers, 1u + 4 * 32 + 2 * 32);
  EXPECT_EQ(t.reduce_scatters, 1u + 2 * 32);
  EXPECT_EQ(t.alltoalls, 6u * 32);  // dispatch + combine in forward, recompute and backward
  q.activation_checkpointing = false;
  t = schedule_totals(build_schedule(q));
  EXPECT_EQ(t.allgathers, 1u + 4 * 32 + 32);
  EXPECT_EQ(t.alltoalls, 4u * 32);
  // Plain FSDP (the seeds' Mixtral runs): every expert gathered, no all-to-all.
  t = schedule_totals(build_schedule(request("mixtral-8x7b", 16)));
  EXPECT_EQ(t.allgathers, 2u * 32 + 1);
  EXPECT_EQ(t.alltoalls, 0u);
}

// Megatron's dispatcher (and the reference) read the gathered counts on the host (.tolist())
// for the all-to-all's split sizes: the host waits for the gather before it issues the dispatch.
TEST(WorkloadsSchedule, RoutingCountsReadOnTheHostBeforeDispatch) {
  WorkloadRequest q = request("mixtral-8x7b", 2);
  q.ep = 2;
  q.layers = 2;
  const Schedule s = build_schedule(q);
  for (const std::string phase : {"fwd", "recompute"}) {
    const std::string counts = "ag.counts." + phase + ".layers.1";
    int at_counts = -1, at_sync = -1, at_dispatch = -1;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      if (s.ops[i].name == counts) at_counts = static_cast<int>(i);
      if (s.ops[i].name == "host_sync." + counts) at_sync = static_cast<int>(i);
      if (s.ops[i].name == "a2a.dispatch." + phase + ".layers.1") at_dispatch = static_cast<int>(i);
    }
    ASSERT_GE(at_counts, 0) << phase;
    ASSERT_EQ(at_sync, at_counts + 1) << phase;  // right after the gather, before the dispatch
    EXPECT_GT(at_dispatch, at_sync) << phase;
    const ScheduleOp& sync = s.ops[at_sync];
    EXPECT_EQ(sync.stream, StreamKind::compute);
    EXPECT_EQ(sync.deps, std::vector<int>{at_counts});
    ASSERT_EQ(sync.compute().kernels.size(), 1u);
    EXPECT_EQ(sync.compute().kernels[0].kind, KernelKind::sync);
    EXPECT_TRUE(sync.compute().gemms.empty());
  }
  // Backward knows its splits from forward: no gather, no read-back.
  for (const ScheduleOp& o : s.ops) {
    if (o.phase != Phase::backward) continue;
    EXPECT_EQ(o.name.find("counts"), std::string::npos) << o.name;
  }
}

TEST(WorkloadsSchedule, DependenciesAndOverlapTargets) {
  for (const std::string wrap : {"block", "submodule", "size"}) {
    WorkloadRequest q = request("mixtral-8x7b", 16, "fsdp2", wrap);
    q.ep = 4;
    q.micro_batches = 2;
    const Schedule s = build_schedule(q);
    std::set<std::string> names;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      const ScheduleOp& o = s.ops[i];
      EXPECT_TRUE(names.insert(o.name).second) << o.name;
      for (int d : o.deps) EXPECT_LT(d, static_cast<int>(i)) << o.name;
      if (o.hides_behind >= 0) {
        EXPECT_TRUE(o.is_collective());
        EXPECT_FALSE(s.ops[o.hides_behind].is_collective()) << o.name;
      }
    }
  }
}

TEST(WorkloadsSchedule, PrefetchOverlapsPreviousLayer) {
  const Schedule s = build_schedule(request("qwen2.5-7b", 16));
  const ScheduleOp& ag = op(s, "ag.fwd.layers.5");
  ASSERT_EQ(ag.deps.size(), 1u);
  EXPECT_EQ(s.ops[ag.deps[0]].name, "compute.fwd.s4.layers.3");       // layer 3's buffer is freed
  EXPECT_EQ(s.ops[ag.hides_behind].name, "compute.fwd.s5.layers.4");  // overlaps layer 4
  const ScheduleOp& c5 = op(s, "compute.fwd.s6.layers.5");
  EXPECT_NE(std::find(c5.deps.begin(), c5.deps.end(), index_of(s, "ag.fwd.layers.5")),
            c5.deps.end());
  EXPECT_EQ(op(s, "ag.fwd.root").hides_behind, -1);  // the first gather is exposed
  EXPECT_EQ(op(s, "rs.root").hides_behind, -1);      // and so is the last reduce-scatter
  const ScheduleOp& rs = op(s, "rs.layers.5");
  EXPECT_EQ(s.ops[rs.deps[0]].name, "compute.bwd.s6.layers.5");
  EXPECT_EQ(s.ops[rs.hides_behind].name, "compute.recompute.s5.layers.4");
  const ScheduleOp& bag = op(s, "ag.bwd.layers.4");
  EXPECT_EQ(s.ops[bag.hides_behind].name, "compute.bwd.s6.layers.5");
}

TEST(WorkloadsSchedule, FlopsFromShapes) {
  WorkloadRequest q = request("qwen2.5-7b", 16);
  q.seq = 2048;
  q.micro_batch = 2;
  q.activation_checkpointing = false;
  const Schedule s = build_schedule(q);
  const double T = 4096, h = 3584, I = 18944, V = 152064, S = 2048;
  const double linear = h * h * 2 + 2 * h * 512 + 3 * h * I;  // q, o, k, v, mlp weights
  const double attention = 2 * (2 * S * (S / 2) * 128 * 28 * 2);
  const double layer_fwd = 2 * T * linear + attention;
  const double fwd = 28 * layer_fwd + 2 * T * V * h;
  EXPECT_DOUBLE_EQ(test::unit(s, "layers.0").fwd_flops, layer_fwd);
  EXPECT_DOUBLE_EQ(test::unit(s, "layers.0").bwd_flops, 2 * layer_fwd);
  EXPECT_DOUBLE_EQ(schedule_totals(s).flops, 3 * fwd);
  q.activation_checkpointing = true;
  EXPECT_DOUBLE_EQ(schedule_totals(build_schedule(q)).flops, 3 * fwd + 28 * layer_fwd);
}

TEST(WorkloadsSchedule, LayersLimitKeepsRoot) {
  WorkloadRequest q = request("qwen2.5-72b", 16);
  q.layers = 2;
  const Schedule s = build_schedule(q);
  EXPECT_EQ(s.units.size(), 3u);
  EXPECT_EQ(schedule_totals(s).allgathers, 5u);
}

}  // namespace
}  // namespace collreplay
