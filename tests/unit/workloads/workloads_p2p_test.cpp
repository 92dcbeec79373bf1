// Schema version 4: broadcast, send, recv and send_recv with their root / peer, and strided
// groups (membership formula, JSON round trip, rejections, dry-run totals).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/errors.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule_json.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay {
namespace {

std::vector<int> members(const StridedGroup& g, int rank) {
  std::vector<int> m;
  for (int i = 0; i < g.size; ++i) m.push_back(g.member(rank, i));
  return m;
}

TEST(StridedGroup, ConsecutiveBlocks) {
  const StridedGroup tp{4, 1};  // TP / pipeline pairs / HSDP shard groups
  EXPECT_EQ(members(tp, 5), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(tp.group_rank(5), 1);
  EXPECT_EQ(tp.color(2), 0);
  EXPECT_EQ(members(StridedGroup{2, 1}, 3), (std::vector<int>{2, 3}));
}

TEST(StridedGroup, StridedFamilies) {
  const StridedGroup replicate{2, 4};  // 8 ranks: shard groups of 4, replicas 4 apart
  EXPECT_EQ(members(replicate, 5), (std::vector<int>{1, 5}));
  EXPECT_EQ(replicate.group_rank(5), 1);
  EXPECT_EQ(replicate.group_rank(1), 0);
  const StridedGroup inner{2, 2};  // blocks of 4, pairs 2 apart within each: {4, 6}, {5, 7}
  EXPECT_EQ(members(inner, 5), (std::vector<int>{5, 7}));
  EXPECT_EQ(members(inner, 6), (std::vector<int>{4, 6}));
  EXPECT_EQ(inner.group_rank(7), 1);
  // Every rank is in exactly one group of each shape, at its own group rank.
  for (const StridedGroup g : {StridedGroup{2, 4}, StridedGroup{4, 2}, StridedGroup{8, 1}}) {
    std::vector<int> seen(8, 0);
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(g.member(r, g.group_rank(r)), r);
      if (g.color(r) == r)
        for (int m : members(g, r)) ++seen[static_cast<std::size_t>(m)];
    }
    EXPECT_EQ(seen, std::vector<int>(8, 1));
  }
}

TEST(StridedGroup, MustTileTheWorld) {
  EXPECT_TRUE(StridedGroup({2, 4}).problem(8).empty());
  EXPECT_FALSE(StridedGroup({3, 1}).problem(8).empty());  // size does not divide
  EXPECT_FALSE(StridedGroup({2, 3}).problem(8).empty());  // size x stride does not divide
  EXPECT_FALSE(StridedGroup({4, 4}).problem(8).empty());  // larger than the world
  EXPECT_FALSE(StridedGroup({0, 1}).problem(8).empty());
}

CollectiveOp collective(CollectiveKind kind, std::uint64_t bytes) {
  CollectiveOp c;
  c.kind = kind;
  c.dtype = DType::bf16;
  c.bytes = bytes;
  return c;
}

// A 4-rank pipeline-ish step on rank 1: a broadcast from rank 2, a send/recv pair with rank 3
// in a strided pair group, an all-reduce over a strided family and a send_recv ring.
Schedule p2p_schedule() {
  Schedule s;
  s.model = "hand";
  s.plan = "hand";
  s.wrap = "none";
  s.world = 4;
  s.gpus_per_node = 2;
  s.rank = 1;
  auto add = [&](const std::string& name, CollectiveOp c) {
    ScheduleOp op;
    op.name = name;
    op.body = std::move(c);
    s.ops.push_back(std::move(op));
  };
  CollectiveOp b = collective(CollectiveKind::broadcast, 64);
  b.root = 2;
  add("bcast", b);
  for (CollectiveKind k : {CollectiveKind::send, CollectiveKind::recv}) {
    CollectiveOp p = collective(k, 1024);
    p.group = GroupKind::strided;
    p.group_size = 2;
    p.group_stride = 2;
    p.peer = 1;
    add(k == CollectiveKind::send ? "send" : "recv", p);
  }
  CollectiveOp ar = collective(CollectiveKind::all_reduce, 256);
  ar.group = GroupKind::strided;
  ar.group_size = 2;
  ar.group_stride = 1;
  add("ar", ar);
  add("ring", collective(CollectiveKind::send_recv, 512));
  return s;
}

TEST(ScheduleV4, RoundTripKeepsKindsRootPeerAndGroupShape) {
  const Schedule s = p2p_schedule();
  const std::string text = schedule_to_json(s);
  const Schedule back = schedule_from_json(text, "mem");
  EXPECT_EQ(schedule_to_json(back), text);
  EXPECT_EQ(back.schema_version, kScheduleSchemaVersion);
  EXPECT_EQ(kScheduleSchemaVersion, 7);
  EXPECT_EQ(back.ops[0].collective().kind, CollectiveKind::broadcast);
  EXPECT_EQ(back.ops[0].collective().root, 2);
  EXPECT_EQ(back.ops[2].collective().kind, CollectiveKind::recv);
  EXPECT_EQ(back.ops[2].collective().peer, 1);
  EXPECT_EQ(back.ops[2].collective().group, GroupKind::strided);
  EXPECT_EQ(back.ops[2].collective().group_size, 2);
  EXPECT_EQ(back.ops[2].collective().group_stride, 2);
  EXPECT_EQ(back.ops[4].collective().kind, CollectiveKind::send_recv);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["ops"][3]["collective"].contains("peer"));  // only where it means something
  EXPECT_FALSE(j["ops"][0]["collective"].contains("group_size"));
}

std::string reject(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(schedule_to_json(p2p_schedule()));
  edit(j);
  try {
    schedule_from_json(j.dump(), "bad.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << j.dump();
  return "";
}

TEST(ScheduleV4, RejectsBadGroupsRootsAndPeers) {
  auto has = [](const std::string& what, const char* word) {
    return what.find(word) != std::string::npos;
  };
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][3]["collective"]["group_size"] = 3; }), "divide"));
  EXPECT_TRUE(
      has(reject([](auto& j) { j["ops"][1]["collective"]["group_stride"] = 3; }), "world 4"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][1]["collective"]["group_stride"] = 1 << 30; }),
                  "larger than world"));
  EXPECT_TRUE(
      has(reject([](auto& j) { j["ops"][1]["collective"].erase("group_size"); }), "group_size"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][1]["collective"]["peer"] = 2; }), "peer"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][1]["collective"]["peer"] = -1; }), "peer"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][2]["collective"].erase("peer"); }), "peer"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][0]["collective"]["root"] = 4; }), "root"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][3]["collective"]["root"] = 0; }), "root"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][0]["collective"]["peer"] = 0; }), "peer"));
  EXPECT_TRUE(
      has(reject([](auto& j) { j["ops"][0]["collective"]["group_size"] = 2; }), "not strided"));
  EXPECT_TRUE(has(reject([](auto& j) { j["ops"][4]["collective"]["bytes"] = 3; }), "bytes"));
}

TEST(ScheduleV4, OlderVersionsStillLoad) {
  nlohmann::json j = nlohmann::json::parse(schedule_to_json(p2p_schedule()));
  j["version"] = 3;
  j["ops"] = nlohmann::json::array({j["ops"][3]});  // an all_reduce: known to version 3
  j["ops"][0]["collective"]["group"] = "world";
  j["ops"][0]["collective"].erase("group_size");
  j["ops"][0]["collective"].erase("group_stride");
  EXPECT_EQ(schedule_from_json(j.dump(), "v3.json").ops.size(), 1u);
}

TEST(ScheduleV4, TotalsCountBroadcastsPointToPointAndEachStridedShape) {
  const ScheduleTotals t = schedule_totals(p2p_schedule());
  EXPECT_EQ(t.broadcasts, 1u);
  EXPECT_EQ(t.broadcast_bytes, 64u);
  EXPECT_EQ(t.sends, 2u);  // the send and the send_recv
  EXPECT_EQ(t.send_bytes, 1024u + 512u);
  EXPECT_EQ(t.recvs, 2u);
  ASSERT_EQ(t.by_strided_group.size(), 2u);
  EXPECT_EQ(t.by_strided_group.at({2, 2}).ops, 2u);
  EXPECT_EQ(t.by_strided_group.at({2, 1}).bytes, 256u);
  const nlohmann::json dry = nlohmann::json::parse(dry_run_json(p2p_schedule()));
  int strided = 0;
  for (const auto& g : dry["groups"])
    if (g["group"] == "strided") {
      ++strided;
      EXPECT_TRUE(g.contains("stride"));
    }
  EXPECT_EQ(strided, 2);
  EXPECT_EQ(dry["totals"]["broadcasts"], 1);
}

}  // namespace
}  // namespace collreplay
