// The published Qwen2.5-7B config.json gives the schedule the catalog entry of our own format
// gave before the catalog became config.json files: tests/fixtures/hf/qwen2.5-7b_old_catalog.json
// is that schedule (commit ac7b6be, --plan fsdp2 --world 16 --layers 4 --micro-batch 2 --seq
// 2048): every unit's sizes and FLOPs, every op's name, and each collective's bytes and each
// compute op's GEMM count and FLOPs.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/unit/models/hf_fixture.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

nlohmann::json digest(const Schedule& s) {
  nlohmann::json d;
  d["model_params"] = s.model_params;
  for (const UnitSummary& u : s.units)
    d["units"].push_back({u.name, u.params, u.shard_bytes, u.allgather_bytes,
                          u.reduce_scatter_bytes, u.fwd_flops, u.bwd_flops});
  for (const ScheduleOp& op : s.ops) {
    if (op.is_collective())
      d["ops"].push_back({op.name, op.collective().bytes});
    else
      d["ops"].push_back({op.name, op.compute().gemms.size(), gemm_flops(op.compute().gemms)});
  }
  return d;
}

TEST(ModelCatalogEntry, PublishedQwen25_7bIsTheOldCatalogSchedule) {
  std::ifstream in(test::hf_folder("") + "qwen2.5-7b_old_catalog.json");
  ASSERT_TRUE(in);
  const nlohmann::json old = nlohmann::json::parse(in);
  WorkloadRequest q;
  q.model = test::hf_folder("Qwen2.5-7B");
  q.plan = "fsdp2";
  q.world = 16;
  q.layers = 4;
  q.micro_batch = 2;
  q.seq = 2048;
  const nlohmann::json now = digest(build_schedule(q));
  EXPECT_EQ(now["units"], old["units"]);
  EXPECT_EQ(now["ops"], old["ops"]);
  EXPECT_EQ(now["model_params"], old["model_params"]);
}

}  // namespace
}  // namespace collreplay
