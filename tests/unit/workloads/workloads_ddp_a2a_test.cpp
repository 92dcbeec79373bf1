// DDP buckets (+PowerSGD), hierarchical all-to-all stages and the dispatch dtype, with the
// expected sizes worked out here from the shapes.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/parallel/hierarchical_a2a.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

using test::request;

constexpr std::uint64_t H = 3584, I = 18944, Q = 28 * 128, KV = 4 * 128, V = 152064;

const ScheduleOp& op(const Schedule& s, const std::string& name) {
  for (const ScheduleOp& o : s.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no op " + name);
}

// Qwen2.5-7B's gradients in reverse registration order, bucketed by hand: lm_head alone fills
// the 1 MiB first bucket; the final norm joins layer 27's norms and down_proj (the bucket
// reaches 25 MiB with down_proj); up_proj and gate_proj are each over 25 MiB; o_proj (24.5 MiB)
// takes v_proj's bias and weight; k and q close the layer; embed_tokens is last.
std::vector<std::uint64_t> expected_buckets() {
  std::vector<std::uint64_t> b{V * H};
  for (int layer = 27; layer >= 0; --layer) {
    b.push_back((layer == 27 ? H : 0) + 2 * H + H * I);
    b.push_back(I * H);
    b.push_back(I * H);
    b.push_back(H * Q + KV + KV * H);
    b.push_back(KV + KV * H + Q + Q * H);
  }
  b.push_back(V * H);
  return b;
}

TEST(Ddp, BucketsInReverseRegistrationOrderFirstOneMiB) {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.plan = "ddp";
  const Schedule s = build_schedule(q);
  const std::vector<std::uint64_t> want = expected_buckets();
  ASSERT_EQ(s.units.size(), want.size());
  std::vector<std::uint64_t> all_reduces;
  for (const ScheduleOp& o : s.ops) {
    if (!o.is_collective() || o.collective().kind == CollectiveKind::broadcast) continue;
    ASSERT_EQ(o.collective().kind, CollectiveKind::all_reduce)
        << o.name;  // no gathers, no scatters
    EXPECT_EQ(o.collective().group, GroupKind::world);
    all_reduces.push_back(o.collective().bytes);
  }
  ASSERT_EQ(all_reduces.size(), want.size());
  for (std::size_t b = 0; b < want.size(); ++b) {
    EXPECT_EQ(all_reduces[b], want[b] * 2) << "bucket " << b;  // issued in bucket order
    EXPECT_EQ(s.units[b].allreduce_bytes, want[b] * 2);
  }
  // Bucket 1 (layer 27) is ready before bucket 6 (layer 26): issued earlier in backward.
  EXPECT_LT(op(s, "ar.bucket1").deps.at(0), op(s, "ar.bucket6").deps.at(0));
}

// DDP broadcasts the module's buffers from rank 0 before each forward that follows a synced
// backward (broadcast_buffers): the rotary inv_freq, head_dim / 2 fp32 values (7B: 128 / 2 x 4
// B), which the forward's first compute waits for; once a micro-batch, as each all-reduces.
TEST(Ddp, BroadcastsTheModulesBuffersBeforeEachForward) {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.plan = "ddp";
  q.layers = 1;
  q.micro_batches = 2;
  const Schedule s = build_schedule(q);
  std::vector<int> broadcasts;
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].is_collective() && s.ops[i].collective().kind == CollectiveKind::broadcast)
      broadcasts.push_back(static_cast<int>(i));
  ASSERT_EQ(broadcasts.size(), 2u);
  for (int m = 0; m < 2; ++m) {
    const std::string mb = "mb" + std::to_string(m) + ".";
    const ScheduleOp& b = op(s, mb + "bcast.buffers");
    EXPECT_EQ(b.collective().bytes, 64u * 4);
    EXPECT_EQ(b.collective().dtype, DType::f32);
    EXPECT_EQ(b.collective().root, 0);
    EXPECT_EQ(b.collective().group, GroupKind::world);
    EXPECT_EQ(b.phase, Phase::forward);
    // Before every compute op of its micro-batch, and the first one waits for it.
    std::size_t first_compute = s.ops.size();
    for (std::size_t i = 0; i < s.ops.size(); ++i)
      if (!s.ops[i].is_collective() && s.ops[i].name.rfind(mb, 0) == 0) {
        first_compute = i;
        break;
      }
    ASSERT_LT(first_compute, s.ops.size());
    EXPECT_LT(broadcasts[m], static_cast<int>(first_compute));
    const std::vector<int>& deps = s.ops[first_compute].deps;
    EXPECT_NE(std::find(deps.begin(), deps.end(), broadcasts[m]), deps.end())
        << s.ops[first_compute].name;
  }
  // FSDP keeps no such broadcast: its buffers are not DDP's to sync.
  q.plan = "fsdp2";
  for (const ScheduleOp& o : build_schedule(q).ops)
    EXPECT_FALSE(o.is_collective() && o.collective().kind == CollectiveKind::broadcast) << o.name;
}

TEST(Ddp, BucketCapAndReplicaGroupWithTp) {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.plan = "ddp";
  q.tp = 2;
  q.layers = 1;
  q.bucket_cap_mb = 1000;  // everything after the first bucket in one
  const Schedule s = build_schedule(q);
  ASSERT_EQ(s.units.size(), 2u);
  EXPECT_EQ(s.units[0].params, V / 2 * H);  // lm_head, column-split
  const std::uint64_t layer =
      (Q / 2) * H + Q / 2 + 2 * ((KV / 2) * H + KV / 2) + H * (Q / 2) + 3 * (I / 2) * H + 2 * H;
  EXPECT_EQ(s.units[1].params, H + layer + V / 2 * H);
  EXPECT_EQ(op(s, "ar.bucket1").collective().group, GroupKind::replicate);
  EXPECT_EQ(group_size(s, GroupKind::replicate), 4);
}

TEST(Ddp, PowerSgdAllReducesPQAndTheVectors) {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.plan = "ddp";
  q.grad_compression = "powersgd:4";
  const Schedule s = build_schedule(q);
  // Bucket 4 = o_proj [3584, 3584], v bias [512], v weight [512, 3584]. A matrix m x n with
  // r = min(m, n, 4) is compressed when (m + n) r 2 < m n; the bias ([512, 1], r 1) is not.
  EXPECT_EQ(op(s, "ar.bucket4.uncompressed").collective().bytes, KV * 2);
  EXPECT_EQ(op(s, "ar.bucket4.p").collective().bytes, (Q * 4 + KV * 4) * 2);
  EXPECT_EQ(op(s, "ar.bucket4.q").collective().bytes, (H * 4 + H * 4) * 2);
  // lm_head alone: no vector, so no uncompressed all-reduce.
  EXPECT_EQ(op(s, "ar.bucket0.p").collective().bytes, V * 4 * 2);
  EXPECT_EQ(op(s, "ar.bucket0.q").collective().bytes, H * 4 * 2);
  EXPECT_THROW(op(s, "ar.bucket0.uncompressed"), std::runtime_error);
  q.grad_compression = "powersgd:0";
  EXPECT_THROW(build_schedule(q), UsageError);
  q.grad_compression = "powersgd:2";
  q.plan = "fsdp1";
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(HierarchicalA2a, StagesOfAFourMemberGroupOnTwoNodes) {
  // rows[p][q] = 1 + 4p + q; members 0,1 on node 0 and 2,3 on node 1 (L = 2).
  std::vector<std::vector<std::uint64_t>> rows(4, std::vector<std::uint64_t>(4));
  for (int p = 0; p < 4; ++p)
    for (int q = 0; q < 4; ++q) rows[p][q] = 1 + 4 * p + q;
  const std::vector<A2aStage> st = hierarchical_a2a_stages(rows, 0, 2);
  ASSERT_EQ(st.size(), 3u);
  // Gather: member 0 keeps its 1 row for itself and gives member 1 its 2 rows plus the 3 + 4 for
  // node 1 (whose gatherer has local index 1 mod 2 = 1); it gets member 1's 5 rows for it.
  EXPECT_EQ(st[0].group, GroupKind::expert_node);
  EXPECT_EQ(st[0].send_rows, (std::vector<std::uint64_t>{1, 2 + 3 + 4}));
  EXPECT_EQ(st[0].recv_rows, (std::vector<std::uint64_t>{1, 5}));
  // Rail: node 0's rows arrive at (0, 0 mod 2) from (1, 0): 9 + 10 + 13 + 14.
  EXPECT_EQ(st[1].group, GroupKind::expert_rail);
  EXPECT_EQ(st[1].send_rows, (std::vector<std::uint64_t>{0, 0}));
  EXPECT_EQ(st[1].recv_rows, (std::vector<std::uint64_t>{0, 46}));
  // Scatter: member 0 hands node 1's rows on: 9 + 13 to itself, 10 + 14 to member 1.
  EXPECT_EQ(st[2].send_rows, (std::vector<std::uint64_t>{22, 24}));
  EXPECT_EQ(st[2].recv_rows, (std::vector<std::uint64_t>{22, 0}));
  // Every member: rows received directly from its node in the gather plus the scatter = its total.
  for (int me = 0; me < 4; ++me) {
    const auto s = hierarchical_a2a_stages(rows, me, 2);
    std::uint64_t direct = 0, total = 0;
    for (int k = 0; k < 2; ++k) direct += rows[me / 2 * 2 + k][me];
    for (int p = 0; p < 4; ++p) total += rows[p][me];
    std::uint64_t scattered = 0;
    for (std::uint64_t r : s[2].recv_rows) scattered += r;
    EXPECT_EQ(direct + scattered, total) << me;
  }
}

TEST(HierarchicalA2a, ScheduleUsesThreeStagesAndFp8Dispatch) {
  WorkloadRequest q = request("mixtral-8x7b", 8);
  q.gpus_per_node = 4;
  q.ep = 8;
  q.layers = 1;
  q.seq = 256;
  q.a2a = "hierarchical";
  q.a2a_dtype = "fp8";
  const Schedule s = build_schedule(q);
  EXPECT_EQ(group_size(s, GroupKind::expert_node), 4);
  EXPECT_EQ(group_size(s, GroupKind::expert_rail), 2);
  const CollectiveOp& gather = op(s, "a2a.dispatch.fwd.layers.0.gather").collective();
  EXPECT_EQ(gather.dtype, DType::fp8);
  EXPECT_EQ(gather.bytes, 256u * 2 * 4096);  // every routed row leaves in the gather, 1 byte each
  EXPECT_EQ(op(s, "a2a.combine.fwd.layers.0.gather").collective().dtype, DType::bf16);
  EXPECT_EQ(op(s, "a2a.dispatch.bwd.layers.0.gather").collective().dtype, DType::bf16);
  EXPECT_EQ(op(s, "a2a.dispatch.fwd.layers.0.rail").collective().group, GroupKind::expert_rail);
  EXPECT_EQ(schedule_to_json(schedule_from_json(schedule_to_json(s), "fp8")), schedule_to_json(s));
  // Flat fp8 dispatch: half the bf16 bytes.
  q.a2a = "flat";
  EXPECT_EQ(op(build_schedule(q), "a2a.dispatch.fwd.layers.0").collective().bytes, 256u * 2 * 4096);
  // One rank of the expert group per node: nothing to aggregate.
  q.a2a = "hierarchical";
  q.gpus_per_node = 1;
  EXPECT_THROW(build_schedule(q), UsageError);
  q.gpus_per_node = 8;  // the whole group on one node
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(ScheduleJson, VersionTwoRoundTripsAndVersionOneStillLoads) {
  WorkloadRequest q = request("qwen2.5-7b", 8);
  q.tp = 2;
  q.gpus_per_node = 4;  // shard groups of 2, 2 replicas
  q.sharding = "hybrid";
  q.layers = 1;
  const Schedule s = build_schedule(q);
  const Schedule back = schedule_from_json(schedule_to_json(s), "test");
  EXPECT_EQ(back.tp, 2);
  EXPECT_EQ(back.shard_group, 2);
  EXPECT_EQ(schedule_to_json(back), schedule_to_json(s));
  nlohmann::json v1 =
      nlohmann::json::parse(schedule_to_json(build_schedule(request("qwen2.5-7b", 8))));
  v1["version"] = 1;
  v1.erase("tp");
  v1.erase("shard_group");
  for (auto& u : v1["units"]) u.erase("allreduce_bytes");
  const Schedule old = schedule_from_json(v1.dump(), "v1");
  EXPECT_EQ(old.tp, 1);
  v1["version"] = 3;
  EXPECT_THROW(schedule_from_json(v1.dump(), "v3"), UsageError);
}

}  // namespace
}  // namespace collreplay
