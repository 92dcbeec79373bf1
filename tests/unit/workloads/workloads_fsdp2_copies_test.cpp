// FSDP2's copies on the compute stream, as torch 2.11's fully_shard runs them: each reduce-scatter
// preceded by its copy-in (_chunk_cat) of the unit's gradients; over a group of one rank no
// collective at all but foreach_reduce's memcpy of the whole buffer
// (reduce_output.copy_(reduce_scatter_input)), which a group of two never runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/workloads/workloads_test_util.hpp"

namespace collreplay {
namespace {

const char* const kSingleRankReduce = "FSDP2 reduce over one rank";

std::vector<const KernelSlice*> kernels_with(const Schedule& s, const std::string& text) {
  std::vector<const KernelSlice*> out;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const KernelSlice& k : op.compute().kernels)
        if (k.label.find(text) != std::string::npos) out.push_back(&k);
  return out;
}

int reduce_scatters(const Schedule& s) {
  int n = 0;
  for (const ScheduleOp& op : s.ops)
    n += op.is_collective() && op.collective().kind == CollectiveKind::reduce_scatter;
  return n;
}

WorkloadRequest qwen(int world) {
  WorkloadRequest q = test::request("qwen2.5-0.5b", world, "fsdp2");
  q.layers = 2;
  q.gpus_per_node = 1;
  return q;
}

TEST(Fsdp2Copies, AReduceOverOneRankIsAMemcpyOfEachUnitsWholeBuffer) {
  const Schedule s = build_schedule(qwen(1));
  EXPECT_EQ(reduce_scatters(s), 0);
  for (const UnitSummary& u : s.units) {
    const std::vector<const KernelSlice*> copies =
        kernels_with(s, "rs." + u.name + ": " + kSingleRankReduce);
    ASSERT_EQ(copies.size(), 1u) << u.name;
    EXPECT_EQ(copies[0]->kind, KernelKind::copy) << u.name;
    EXPECT_EQ(copies[0]->launches, 1u) << u.name;
    EXPECT_EQ(copies[0]->read_bytes, u.reduce_scatter_bytes) << u.name;
    EXPECT_EQ(copies[0]->write_bytes, u.reduce_scatter_bytes) << u.name;
    EXPECT_GT(u.reduce_scatter_bytes, 0u) << u.name;
  }
}

TEST(Fsdp2Copies, TheMemcpyFollowsTheCopyInInTheUnitsLastBackwardOp) {
  const Schedule s = build_schedule(qwen(1));
  for (const ScheduleOp& op : s.ops) {
    if (op.is_collective()) continue;
    const std::vector<KernelSlice>& ks = op.compute().kernels;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      if (ks[i].label.find(kSingleRankReduce) == std::string::npos) continue;
      EXPECT_EQ(op.phase, Phase::backward) << op.name;
      ASSERT_GT(i, 0u) << op.name;
      EXPECT_NE(ks[i - 1].label.find("copy-in (_chunk_cat)"), std::string::npos)
          << op.name << ": " << ks[i - 1].label;
    }
  }
}

TEST(Fsdp2Copies, AGroupOfTwoReduceScattersWithoutTheMemcpy) {
  const Schedule s = build_schedule(qwen(2));
  EXPECT_TRUE(kernels_with(s, kSingleRankReduce).empty());
  EXPECT_EQ(reduce_scatters(s), static_cast<int>(s.units.size()));
  EXPECT_EQ(kernels_with(s, "copy-in (_chunk_cat)").size(), s.units.size());
}

}  // namespace
}  // namespace collreplay
