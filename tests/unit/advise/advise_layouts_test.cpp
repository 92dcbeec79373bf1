// The layouts advise weighs: which apply to a model and world, which are refused and why, and the
// ranking of those that fit.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/project/layouts/layouts.hpp"
#include "bench/project/layouts/ranked_layouts.hpp"

namespace collreplay::project {
namespace {

const Layout& named(const std::vector<Layout>& layouts, const std::string& name) {
  const auto it =
      std::find_if(layouts.begin(), layouts.end(), [&](const Layout& l) { return l.name == name; });
  EXPECT_NE(it, layouts.end()) << name;
  return *it;
}

WorkloadRequest base(const std::string& model, int gpus_per_node) {
  WorkloadRequest r;
  r.model = model;
  r.gpus_per_node = gpus_per_node;
  return r;
}

TEST(AdviseLayouts, DenseModelOnTwoNodesOfEight) {
  const ModelConfig qwen = load_model("qwen2.5-7b", "");
  const std::vector<Layout> all = candidate_layouts(base("qwen2.5-7b", 8), qwen, 2);
  for (const char* name : {"fsdp", "hsdp", "ddp", "tp2+fsdp", "tp4+hsdp", "tp4+ddp"}) {
    const Layout l = named(all, name);
    EXPECT_EQ(l.refused, "") << name;
    EXPECT_EQ(l.request.world, 16);
  }
  EXPECT_EQ(named(all, "hsdp").request.sharding, "hybrid");
  EXPECT_EQ(named(all, "ddp").request.plan, "ddp");
  EXPECT_EQ(named(all, "tp4+fsdp").request.tp, 4);
  EXPECT_NE(named(all, "tp8+fsdp").refused.find("does not divide 28 heads"), std::string::npos);
  EXPECT_NE(named(all, "ep8+fsdp").refused.find("dense model"), std::string::npos);
}

// The distributed optimizer beside DDP: the same plan and mesh, its optimizer states sharded.
TEST(AdviseLayouts, DistributedOptimizerBesideEachDdp) {
  const ModelConfig nemotron = load_model("nemotron-4-15b", "");
  const std::vector<Layout> all = candidate_layouts(base("nemotron-4-15b", 8), nemotron, 2);
  for (const char* name : {"ddp+do", "tp2+ddp+do", "tp4+ddp+do", "tp8+ddp+do"}) {
    const Layout& l = named(all, name);
    EXPECT_EQ(l.refused, "") << name;
    EXPECT_EQ(l.request.plan, "ddp") << name;
    EXPECT_TRUE(l.request.distributed_optimizer) << name;
  }
  EXPECT_FALSE(named(all, "tp4+ddp").request.distributed_optimizer);
  EXPECT_EQ(named(all, "tp4+ddp+do").request.tp, 4);
}

TEST(AdviseLayouts, OneNodeRefusesHsdpAndNamesTensorParallelAlone) {
  const ModelConfig qwen = load_model("qwen2.5-0.5b", "");
  const std::vector<Layout> all = candidate_layouts(base("qwen2.5-0.5b", 2), qwen, 1);
  EXPECT_NE(named(all, "hsdp").refused.find("one node"), std::string::npos);
  EXPECT_EQ(named(all, "tp2").refused, "");  // tp over the whole world: no data parallelism left
  EXPECT_NE(named(all, "tp4+fsdp").refused.find("exceeds 2 GPUs per node"), std::string::npos);
}

TEST(AdviseLayouts, OneGpuIsNamedByItsDataParallelPlanNotTp1) {
  const ModelConfig qwen = load_model("qwen2.5-0.5b", "");
  const std::vector<Layout> all = candidate_layouts(base("qwen2.5-0.5b", 1), qwen, 1);
  for (const Layout& l : all) EXPECT_NE(l.name, "tp1");
  EXPECT_EQ(named(all, "fsdp").refused, "");
  EXPECT_EQ(named(all, "ddp").refused, "");
}

TEST(AdviseLayouts, MoeSpreadsExpertsWhereTheyTileTheNodes) {
  const ModelConfig mixtral = load_model("mixtral-8x7b", "");
  const std::vector<Layout> all = candidate_layouts(base("mixtral-8x7b", 8), mixtral, 2);
  EXPECT_EQ(named(all, "ep8+fsdp").refused, "");
  EXPECT_EQ(named(all, "ep8+fsdp").request.ep, 8);
}

TEST(AdviseLayouts, RanksOnlyWhatFitsByTokensPerSecond) {
  WorkloadRequest request = base("qwen2.5-0.5b", 2);
  request.layers = 2;
  request.seq = 512;
  ProjectionInputs in;
  in.model.inter = {50, 0.125, 0, 1};
  in.model.intra = {0, 100, 0, 1};
  in.compute.peak_tflops = 989.4;
  in.compute.mfu = 0.5;
  // 1.5 GiB for the tensors beside the context and NCCL: room for fsdp and tp2, not for ddp.
  MemoryBudget budget;
  budget.capacity_bytes =
      static_cast<std::uint64_t>(1.5 * kGiB) + kCudaContextBytes + kNcclBuffersBytes;
  in.memory = MemoryLimit{load_model("qwen2.5-0.5b", ""), budget,
                                              OptimizerStates::plan};
  const std::uint64_t room = budget.tensor_room_bytes();
  EXPECT_NEAR(static_cast<double>(room), 1.5 * kGiB, 1e6);
  const std::vector<RankedLayout> advice =
      rank_layouts(candidate_layouts(request, in.memory->model, 2), 2, {in}).front();
  int expected_rank = 0;
  double previous = 1e300;
  bool some_too_big = false;
  for (const RankedLayout& a : advice) {
    if (a.fits) {
      ASSERT_TRUE(a.rank);
      EXPECT_EQ(*a.rank, ++expected_rank);
      EXPECT_LE(a.projection->tokens_per_s, previous);
      previous = a.projection->tokens_per_s;
      // What stays, and what churns with the allocator's low-end slack on it, fits.
      EXPECT_LE(a.memory->reserved_bytes(kSlackLow), room);
      EXPECT_EQ(a.projection->memory_tight, a.memory->reserved_bytes(kSlackHigh) > room);
      continue;
    }
    EXPECT_GT(a.memory ? a.memory->reserved_bytes(kSlackLow) : room + 1, room);
    EXPECT_FALSE(a.rank);
    EXPECT_FALSE(a.reason.empty());
    some_too_big |= a.memory.has_value();
  }
  EXPECT_GT(expected_rank, 0);
  EXPECT_TRUE(some_too_big);
}

}  // namespace
}  // namespace collreplay::project
