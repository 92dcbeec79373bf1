// Bad requests: one UsageError line naming the problem, before anything is built.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"

namespace collreplay {
namespace {

void expect_usage(WorkloadRequest q, const std::string& needle) {
  try {
    build_schedule(q);
    ADD_FAILURE() << "accepted; expected " << needle;
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(WorkloadsRequest, Rejections) {
  const WorkloadRequest ok = test::request("mixtral-8x7b", 16);
  auto with = [&](auto edit) {
    WorkloadRequest q = ok;
    edit(q);
    return q;
  };
  expect_usage(with([](auto& q) { q.model = "nope"; }), "unknown model");
  expect_usage(with([](auto& q) { q.world = 0; }), "--world");
  expect_usage(with([](auto& q) { q.seq = 0; }), "--seq");
  expect_usage(with([](auto& q) { q.ep = 3; }), "does not divide the 8 experts");
  expect_usage(with([](auto& q) {
                 q.ep = 4;
                 q.world = 6;
               }),
               "does not divide world");
  expect_usage(with([](auto& q) {
                 q.model = "qwen2.5-7b";
                 q.ep = 2;
               }),
               "dense");
  expect_usage(with([](auto& q) { q.plan = "zero3"; }), "--plan");
  expect_usage(with([](auto& q) { q.wrap = "layer"; }), "--wrap");
  expect_usage(with([](auto& q) { q.routing = "random"; }), "--routing");
  expect_usage(with([](auto& q) { q.routing = "hot:8"; }), "K must be below the 8 experts");
  expect_usage(with([](auto& q) { q.routing = "hot:9"; }), "K must be below the 8 experts");
  expect_usage(with([](auto& q) { q.routing = "zipf:0"; }), "S must be in (0, 64]");
  expect_usage(with([](auto& q) { q.routing = "zipf:-1"; }), "S must be in (0, 64]");
  expect_usage(with([](auto& q) { q.experts_layout = "fused"; }), "--experts-layout");
  expect_usage(with([](auto& q) { q.sharding = "hybrid-zero3"; }), "--sharding");
  expect_usage(with([](auto& q) {
                 q.sharding = "hybrid";
                 q.ep = 2;
               }),
               "--sharding");
  expect_usage(with([](auto& q) {
                 q.mesh = "2x4x2";
                 q.world = 8;
               }),
               "the world is 8");
  expect_usage(with([](auto& q) {
                 q.tp = 3;
                 q.world = 24;
               }),
               "GPUs per node");
  expect_usage(with([](auto& q) { q.param_dtype = "int8"; }), "dtype");
  expect_usage(with([](auto& q) { q.layers = 33; }), "--layers");
  expect_usage(with([](auto& q) {
                 q.seq = std::int64_t{1} << 40;
                 q.micro_batch = std::int64_t{1} << 40;
               }),
               "overflows 64 bits");
  expect_usage(with([](auto& q) { q.pad_to_capacity = true; }), "--capacity-factor");
}

}  // namespace
}  // namespace collreplay
