// Pairing BASE and NEW records that measured the same thing (what `compare` sets side by side).
#include <gtest/gtest.h>

#include "records/pairing.hpp"
#include "records/results_reader.hpp"
#include "tests/support/results_fixtures.hpp"

namespace collreplay::records {
namespace {

Record record(const char* json, int line = 1) {
  return {nlohmann::json::parse(json), "x.jsonl", line};
}

const char* kAllGather1M = R"({"op":"all_gather","bytes":1048576,"placement":"out_of_place",
    "dtype":"bf16","ranks":2,"nodes":1,"transport":"nvlink","time_us":10})";

TEST(Pairing, KeysCarryWhatMakesTwoRecordsTheSameMeasurement) {
  const RecordKey perf = key_of(record(kAllGather1M));
  EXPECT_EQ(perf.kind, "perf");
  EXPECT_EQ(perf.op, "all_gather");
  EXPECT_EQ(perf.size_bytes, 1048576.0);
  EXPECT_EQ(perf.ranks, 2);
  EXPECT_EQ(perf.transport, "nvlink");
  EXPECT_EQ(describe(perf),
            "perf all_gather out_of_place bf16 1048576 B, 2 ranks on 1 node, nvlink");
  const RecordKey op = key_of(record(
      R"({"record":"op","op":3,"name":"ag.fwd.layers.0","unit":"layers.0","bytes":4096,
          "run":{"ranks":4,"nodes":2,"transport_verified":"socket","fabric":"eth-10g",
                 "command_line":["replay","--model","qwen2.5-0.5b"]}})"));
  EXPECT_EQ(op.op, "ag.fwd.layers.0");  // the op index says nothing across runs; the name does
  EXPECT_EQ(op.model, "qwen2.5-0.5b");
  EXPECT_EQ(op.ranks, 4);
  EXPECT_EQ(op.nodes, 2);
  EXPECT_EQ(
      describe(op),
      "op qwen2.5-0.5b ag.fwd.layers.0 layers.0 4096 B, 4 ranks on 2 nodes, socket (eth-10g)");
}

TEST(Pairing, EqualKeysPairInReadOrderAndTheRestIsUnpaired) {
  const std::vector<Record> base = {
      record(kAllGather1M, 1),
      record(kAllGather1M, 2),  // a second repetition
      record(R"({"op":"reduce_scatter","bytes":1048576,"ranks":2,"transport":"nvlink"})", 3),
  };
  const std::vector<Record> candidate = {
      record(R"({"op":"all_to_all","bytes":1048576,"ranks":2,"transport":"nvlink"})", 1),
      record(kAllGather1M, 2),
      record(R"({"op":"all_gather","bytes":1048576,"ranks":2,"transport":"socket"})", 3),
  };
  const Pairing p = pair_records(base, candidate);
  ASSERT_EQ(p.pairs.size(), 1u);
  EXPECT_EQ(p.pairs[0].base->line, 1);
  EXPECT_EQ(p.pairs[0].candidate->line, 2);
  ASSERT_EQ(p.only_base.size(), 2u);
  EXPECT_EQ(p.only_base[0]->line, 2);
  EXPECT_EQ(p.only_base[1]->line, 3);
  ASSERT_EQ(p.only_candidate.size(), 2u);
  EXPECT_EQ(p.only_candidate[0]->line, 1);
  EXPECT_EQ(p.only_candidate[1]->line, 3);
}

TEST(Pairing, OneReplayOverTwoTransportsPairsOpForOpOnceTransportIsLeftOut) {
  const std::string folder = test_support::results_fixtures("replay");
  const std::vector<Record> nvlink =
      read_results_strictly({folder + "/qwen2.5-7b_nvlink_2xH200.jsonl"});
  const std::vector<Record> socket =
      read_results_strictly({folder + "/qwen2.5-7b_socket_2xH200.jsonl"});
  EXPECT_TRUE(pair_records(nvlink, socket).pairs.empty());
  const Pairing p = pair_records(nvlink, socket, [](const Record& r) {
    RecordKey key = key_of(r);
    key.transport.clear();
    return key;
  });
  EXPECT_EQ(p.pairs.size(), nvlink.size());  // 28 ops, 5 units, 1 step
  for (const RecordPair& pair : p.pairs) {
    EXPECT_EQ(pair.base->kind(), pair.candidate->kind());
    EXPECT_EQ(pair.base->data.value("name", ""), pair.candidate->data.value("name", ""));
    EXPECT_EQ(pair.base->data.value("unit", ""), pair.candidate->data.value("unit", ""));
  }
  EXPECT_TRUE(p.only_base.empty());
  EXPECT_TRUE(p.only_candidate.empty());
}

}  // namespace
}  // namespace collreplay::records
