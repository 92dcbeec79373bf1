// The pipelined schedule: each stage's layers and units, the P2P messages (bytes, group, peers,
// which compute waits for which), the gradient synchronisation per data-parallel plan, the bubble
// of small pipelines simulated from the order (counted by hand), the JSON round trip, the stage
// groups against the mesh, and bad input.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/model/model.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/plan/pipeline/pipeline_sim.hpp"
#include "workloads/plan/pipeline/stage_groups.hpp"
#include "workloads/schedule_json.hpp"

namespace collreplay {
namespace {

WorkloadRequest small(int world, int pp, int mbs, const std::string& schedule = "1f1b",
                      const std::string& plan = "fsdp1") {
  WorkloadRequest q = test::request("qwen2.5-0.5b", world, plan);
  q.layers = 4;
  q.seq = 64;
  q.gpus_per_node = 2;
  q.micro_batches = mbs;
  q.pipeline.pp = pp;
  q.pipeline.schedule = schedule;
  return q;
}

Schedule at_rank(WorkloadRequest q, int rank) {
  q.rank = rank;
  return build_schedule(q);
}

int count_ops(const Schedule& s, const std::string& prefix) {
  int n = 0;
  for (const ScheduleOp& op : s.ops) n += op.name.rfind(prefix, 0) == 0;
  return n;
}

int index_of(const Schedule& s, const std::string& name) {
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST(PipelineBuilder, StagesHoldTheirLayersAndModelModules) {
  const WorkloadRequest q = small(2, 2, 2);
  const Schedule first = at_rank(q, 0), last = at_rank(q, 1);
  std::vector<std::string> names;
  for (const UnitSummary& u : first.units) names.push_back(u.name);
  EXPECT_EQ(names, (std::vector<std::string>{"root", "layers.0", "layers.1"}));
  names.clear();
  for (const UnitSummary& u : last.units) names.push_back(u.name);
  EXPECT_EQ(names, (std::vector<std::string>{"root", "layers.2", "layers.3"}));
  // Qwen2.5-0.5B ties its embeddings: the first stage's root holds embed_tokens, the last's the
  // final norm and its own copy of the head's weight.
  const ModelConfig m = load_model("qwen2.5-0.5b", "");
  const auto vh = static_cast<std::uint64_t>(m.vocab * m.hidden);
  EXPECT_EQ(test::unit(first, "root").params, vh);
  EXPECT_EQ(test::unit(last, "root").params, vh + static_cast<std::uint64_t>(m.hidden));
  EXPECT_EQ(test::unit(first, "layers.1").params, test::unit(last, "layers.2").params);
  // Every rank counts the whole model (MFU), and its share of the step's tokens.
  EXPECT_EQ(first.model_params, model_totals(m, 4).params);
  EXPECT_EQ(first.tokens_per_step, 2u * 64u / 2u);
}

TEST(PipelineBuilder, ActivationsOfOneMicroBatchSplitOverTheTpGroup) {
  WorkloadRequest q = test::request("qwen2.5-72b", 32);
  q.seq = 2048;
  q.tp = 2;
  q.micro_batches = 8;
  q.pipeline.pp = 4;
  // Stage 1 (ranks 8-15, one node of 8): 1 x 2048 x 8192 x 2 B / tp 2 to each neighbour.
  const Schedule s = at_rank(q, 9);
  std::map<std::string, int> count;
  for (const ScheduleOp& op : s.ops) {
    if (!op.is_collective()) continue;
    const CollectiveOp& c = op.collective();
    if (c.kind != CollectiveKind::send && c.kind != CollectiveKind::recv) continue;
    EXPECT_EQ(c.bytes, 16777216u) << op.name;
    EXPECT_EQ(c.group, GroupKind::strided);
    EXPECT_EQ(c.group_size, 4);
    EXPECT_EQ(c.group_stride, 8);
    const bool down = (c.kind == CollectiveKind::send) == (op.name.find(".fwd.") != std::string::npos);
    EXPECT_EQ(c.peer, down ? 2 : 0) << op.name;  // its neighbours' ranks 17 and 1
    ++count[op.name.substr(0, op.name.find(".mb"))];
  }
  EXPECT_EQ(count, (std::map<std::string, int>{{"pp.recv.bwd", 8}, {"pp.recv.fwd", 8},
                                               {"pp.send.bwd", 8}, {"pp.send.fwd", 8}}));
}

TEST(PipelineBuilder, ComputeWaitsForWhatItReceives) {
  const Schedule s = at_rank(small(2, 2, 4), 1);
  for (int mb = 0; mb < 4; ++mb) {
    const std::string p = "mb" + std::to_string(mb) + ".";
    const int recv = index_of(s, "pp.recv.fwd.mb" + std::to_string(mb));
    ASSERT_GE(recv, 0);
    int first_forward = -1, last_backward = -1;
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      const ScheduleOp& op = s.ops[i];
      if (op.is_collective() || op.name.rfind(p, 0) != 0) continue;
      if (op.phase == Phase::forward && first_forward < 0) first_forward = static_cast<int>(i);
      if (op.phase == Phase::backward) last_backward = static_cast<int>(i);
    }
    const std::vector<int>& deps = s.ops[static_cast<std::size_t>(first_forward)].deps;
    EXPECT_NE(std::find(deps.begin(), deps.end(), recv), deps.end()) << p;
    // The gradient sent back is the backward's: the send waits for its last compute.
    const int send = index_of(s, "pp.send.bwd.mb" + std::to_string(mb));
    const std::vector<int>& sdeps = s.ops[static_cast<std::size_t>(send)].deps;
    EXPECT_NE(std::find(sdeps.begin(), sdeps.end(), last_backward), sdeps.end()) << p;
  }
}

// Each rank's schedule with every micro-batch's forward taking `fwd` and its backward `2 x fwd`
// (spread over the block's compute ops), everything else free; the simulated idle shares.
PipelineStep simulate(const WorkloadRequest& q, int ranks) {
  std::vector<Schedule> schedules;
  for (int r = 0; r < ranks; ++r) schedules.push_back(at_rank(q, r));
  std::vector<const Schedule*> pointers;
  std::vector<std::vector<double>> op_ms;
  for (const Schedule& s : schedules) {
    std::map<std::pair<std::string, bool>, int> ops_in_block;
    auto key = [](const ScheduleOp& op) {
      return std::pair(op.name.substr(0, op.name.find(".compute.")), op.phase == Phase::forward);
    };
    for (const ScheduleOp& op : s.ops)
      if (!op.is_collective() && op.name.find(".compute.") != std::string::npos) ++ops_in_block[key(op)];
    std::vector<double> ms;
    for (const ScheduleOp& op : s.ops) {
      const bool timed = !op.is_collective() && op.name.find(".compute.") != std::string::npos;
      ms.push_back(timed ? (op.phase == Phase::forward ? 1.0 : 2.0) / q.pipeline.pp * 2 /
                               ops_in_block[key(op)] / (q.pipeline.schedule == "interleaved:2" ? 2 : 1)
                         : 0.0);
    }
    op_ms.push_back(std::move(ms));
    pointers.push_back(&s);
  }
  return simulate_ranks(pointers, op_ms);
}

TEST(PipelineBuilder, BubbleComesFromTheOrder) {
  // 2 stages x 4 micro-batches, forward 1 and backward 2 per micro-batch and stage: the first
  // stage's first forward and the last stage's last backward stand alone, so the step is
  // (M + pp - 1) x 3 = 15 and each stage idles 3 of it (1F1B and GPipe alike).
  for (const std::string schedule : {"1f1b", "gpipe"}) {
    const PipelineStep step = simulate(small(2, 2, 4, schedule), 2);
    EXPECT_NEAR(step.step_ms, 15.0, 1e-9) << schedule;
    for (const RankTimeline& r : step.ranks) EXPECT_NEAR(r.compute_ms, 12.0, 1e-9) << schedule;
  }
  // Interleaved over 2 chunks per rank (half a stage's work each): the fill and drain cost one
  // chunk's forward and backward, 1.5: step 12 + 1.5.
  const PipelineStep step = simulate(small(2, 2, 4, "interleaved:2"), 2);
  EXPECT_NEAR(step.step_ms, 13.5, 1e-9);
}

int gathers_of(const Schedule& s, const std::string& unit) {
  int n = 0;
  for (const ScheduleOp& op : s.ops) {
    const std::string& name = op.name;
    const std::size_t at = name.find("ag.");
    n += op.is_collective() && at != std::string::npos &&
         name.compare(name.size() - unit.size() - 1, std::string::npos, "." + unit) == 0;
  }
  return n;
}

TEST(PipelineBuilder, Fsdp2GathersWhileShardedAndReducesOncePerStep) {
  // Stage 0 of 2, order F0 F1 B0 F2 B1 F3 B2 B3, data-parallel groups of 2.
  WorkloadRequest q = small(4, 2, 4, "1f1b", "fsdp2");
  q.sharding = "grad-op";  // reshard_after_forward=False: gathered once, in the first forward
  Schedule s = at_rank(q, 0);
  EXPECT_EQ(gathers_of(s, "layers.0"), 1);
  EXPECT_EQ(gathers_of(s, "root"), 1);
  EXPECT_EQ(count_ops(s, "rs."), 3);  // root, layers.0, layers.1, once, after the last backward
  EXPECT_EQ(count_ops(s, "mb"), count_ops(s, "mb") - count_ops(s, "mb0.rs."));
  const int post = index_of(s, "fsdp.post_backward");
  ASSERT_GE(post, 0);
  EXPECT_GT(index_of(s, "rs.layers.0"), post);
  EXPECT_EQ(s.ops[static_cast<std::size_t>(index_of(s, "rs.layers.0"))].deps, std::vector<int>{post});
  // reshard_after_forward=True: every forward reshards; F0, F1 gather, F2 and F3 follow a
  // backward (still gathered), B0, B1 and B2 follow a forward, B3 follows B2. The root stays.
  q.sharding = "full";
  s = at_rank(q, 0);
  EXPECT_EQ(gathers_of(s, "layers.0"), 5);
  for (const std::string name : {"mb0.ag.fwd.layers.0", "mb1.ag.fwd.layers.0", "mb0.ag.bwd.layers.0",
                                 "mb1.ag.bwd.layers.0", "mb2.ag.bwd.layers.0"})
    EXPECT_GE(index_of(s, name), 0) << name;
  EXPECT_EQ(gathers_of(s, "root"), 1);
}

TEST(PipelineBuilder, DdpAllReducesInTheLastBackwardAndFsdp1AsItsHooksDo) {
  const Schedule ddp = at_rank(small(4, 2, 4, "1f1b", "ddp"), 0);
  EXPECT_GT(count_ops(ddp, "mb3.ar.bucket"), 0);
  for (const std::string p : {"mb0.", "mb1.", "mb2."}) {
    EXPECT_EQ(count_ops(ddp, p + "ar."), 0) << p;
    EXPECT_EQ(count_ops(ddp, p + "bcast."), 0) << p;
  }
  EXPECT_EQ(count_ops(ddp, "mb3.bcast."), 0);
  // FSDP1 is no FSDPModule: its hooks reduce-scatter every micro-batch.
  const Schedule fsdp1 = at_rank(small(4, 2, 4), 0);
  for (const std::string p : {"mb0.", "mb1.", "mb2.", "mb3."}) EXPECT_EQ(count_ops(fsdp1, p + "rs."), 3);
}

TEST(PipelineBuilder, ScheduleJsonRoundTrips) {
  const Schedule s = at_rank(small(4, 2, 4, "interleaved:2", "fsdp2"), 2);
  const std::string json = schedule_to_json(s);
  EXPECT_EQ(schedule_to_json(schedule_from_json(json, "test")), json);
  EXPECT_EQ(s.schema_version, kScheduleSchemaVersion);
  EXPECT_GT(count_ops(s, "stage1."), 0);  // rank 2 holds stages 1 and 3
  EXPECT_GT(count_ops(s, "stage3."), 0);
}

TEST(PipelineBuilder, StageGroupsAreTheMeshGroupsOfEachStage) {
  // 4 stages of 8 ranks: TP 2 x shard 4 inside each; pp outermost.
  const MeshLayout stage{8, 8, 2, 1, 0};
  for (GroupKind kind : {GroupKind::world, GroupKind::tp, GroupKind::shard, GroupKind::replicate}) {
    CollectiveOp c;
    c.group = kind;
    const StridedGroup g = strided_group(on_stage_group(c, stage));
    for (int r = 0; r < 32; ++r)
      for (int other = 0; other < 32; ++other) {
        const bool same_stage = r / 8 == other / 8;
        const bool together = same_stage && mesh_group_color(stage, kind, r % 8) ==
                                                mesh_group_color(stage, kind, other % 8);
        EXPECT_EQ(g.color(r) == g.color(other), together) << group_kind_name(kind) << r << other;
      }
  }
}

TEST(PipelineBuilder, BadInputIsOneLine) {
  const auto fails = [](WorkloadRequest q, const std::string& says) {
    try {
      build_schedule(q);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  fails(small(3, 2, 4), "--pp 2 does not divide world 3");
  fails(small(2, 2, 1), "1f1b needs at least as many micro-batches as stages");
  fails(small(2, 2, 3, "interleaved:2"), "multiple of --pp 2");
  WorkloadRequest uneven = small(2, 2, 4, "interleaved:3");
  uneven.layers = 8;
  fails(uneven, "does not divide them evenly");
  fails(small(8, 8, 8), "more stages than layers");
  fails(small(2, 2, 4, "zigzag"), "unknown --pp-schedule");
  WorkloadRequest q = small(2, 2, 4);
  q.pipeline.layers = "1,2";
  fails(q, "adds up to 3");
  q.pipeline.layers = "4";
  fails(q, "lists 1 stages");
  q = small(2, 1, 4);
  fails(q, "--pp-schedule needs --pp above 1");
  q = small(4, 2, 4);
  q.tp = 4;
  fails(q, "--pp 2 x --tp 4 does not divide world 4");
}

}  // namespace
}  // namespace collreplay
