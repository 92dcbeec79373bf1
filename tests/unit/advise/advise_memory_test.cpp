// The memory model by hand: Qwen2.5-7B under FSDP1 FULL_SHARD on one node of 8 GPUs, micro-batch
// 1 x 4096 tokens, bf16 parameters, gradients and (plan) moments.
#include <gtest/gtest.h>

#include "bench/project/memory/memory_model.hpp"
#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

// Parameters: a decoder layer 233,057,792 (workloads/README.md), 28 of them, and the root
// (embed_tokens and lm_head 152,064 x 3,584 each, the final norm 3,584) 1,089,998,336:
// 7,615,616,512. Both divide by 8, so FSDP1 pads nothing and each GPU holds 951,952,064 elements.
constexpr std::uint64_t kShardNumel = 7'615'616'512ULL / 8;
constexpr std::uint64_t kRootGathered = 1'089'998'336ULL * 2;
constexpr std::uint64_t kLayerGathered = 233'057'792ULL * 2;

struct Case {
  WorkloadRequest request;
  ModelConfig model;
  Schedule schedule;
};

Case qwen7b(bool recompute) {
  Case c;
  c.request.model = "qwen2.5-7b";
  c.request.world = 8;
  c.request.gpus_per_node = 8;
  c.request.micro_batch = 1;
  c.request.seq = 4096;
  c.request.activation_checkpointing = recompute;
  c.model = load_model(c.request.model, "");
  c.schedule = build_schedule(c.request);
  return c;
}

TEST(AdviseMemory, ShardedStatesOfQwen7bFullShardOnEightGpus) {
  const Case c = qwen7b(true);
  const MemoryPerGpu plan = memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::plan);
  EXPECT_EQ(plan.params_bytes, kShardNumel * 2);     // 1,903,904,128 B
  EXPECT_EQ(plan.grads_bytes, kShardNumel * 2);      // bf16 reduce dtype
  EXPECT_EQ(plan.optimizer_bytes, kShardNumel * 4);  // exp_avg and exp_avg_sq in bf16
  EXPECT_EQ(plan.params_bytes + plan.grads_bytes + plan.optimizer_bytes, 7'615'616'512ULL);
  // Mixed precision's fp32 master weights and moments: 12 bytes per element of the shard.
  const MemoryPerGpu fp32 = memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::fp32);
  EXPECT_EQ(fp32.optimizer_bytes, kShardNumel * 12);
  // The root stays gathered; the running layer and its prefetched successor are gathered; the
  // largest unit's full bf16 gradient (the root's) waits for its reduce-scatter.
  EXPECT_EQ(plan.gathered_bytes, kRootGathered + 2 * kLayerGathered + kRootGathered);
}

TEST(AdviseMemory, ActivationsWithAndWithoutRecompute) {
  // Per token a layer saves 2h norm outputs, 2h norm inputs, q + k + v + attention output
  // (3,584 + 512 + 512 + 3,584) and 4 x 18,944 of the MLP: 98,304 elements, bf16.
  const std::uint64_t full_layer = 4096ULL * 98'304 * 2;     // 805,306,368 B
  const std::uint64_t logits = 4096ULL * 152'064 * (2 + 4);  // bf16 logits and their fp32 copy
  const std::uint64_t layer_input = 4096ULL * 3'584 * 2;
  const Case with = qwen7b(true);
  EXPECT_EQ(activation_bytes(with.model, with.request), 28 * layer_input + full_layer + logits);
  const Case without = qwen7b(false);
  EXPECT_EQ(activation_bytes(without.model, without.request), 28 * full_layer + logits);
  EXPECT_EQ(memory_per_gpu(without.schedule, without.model, without.request, OptimizerStates::plan)
                .activations_bytes,
            26'285'703'168ULL);
}

TEST(AdviseMemory, TensorParallelSplitsWhatItShards) {
  Case c = qwen7b(true);
  c.request.tp = 4;
  c.schedule = build_schedule(c.request);
  const MemoryPerGpu tp4 = memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::plan);
  const Case one = qwen7b(true);
  const MemoryPerGpu tp1 =
      memory_per_gpu(one.schedule, one.model, one.request, OptimizerStates::plan);
  // The same parameters over the same 8 GPUs: only the norms (kept whole on every TP rank) add.
  EXPECT_GE(tp4.params_bytes, tp1.params_bytes);
  EXPECT_LT(tp4.params_bytes, tp1.params_bytes * 101 / 100);
  EXPECT_LT(tp4.activations_bytes, tp1.activations_bytes / 2);
}

// Nemotron-4 15B at TP 4 on 16 GPUs (DP 4) with the distributed optimizer: a TP rank holds
// 32 layers of 97,542,144 (q, o 1536 x 6144; k, v 256 x 6144; up, down 6144 x 6144; four norm
// vectors 6144), embed_tokens and lm_head 64,000 x 6,144 each and the final norm's 12,288:
// 3,907,792,896. Every tensor and bucket is a multiple of 128 elements, so the buffer has no
// padding. Parameters bf16 and gradients fp32 whole; fp32 master, exp_avg and exp_avg_sq over a
// quarter of it. Without it (plain DDP) the moments are bf16 and whole.
constexpr std::uint64_t kTpRank = 3'907'792'896ULL;

TEST(AdviseMemory, DistributedOptimizerShardsOnlyTheOptimizerStates) {
  WorkloadRequest q;
  q.model = "nemotron-4-15b";
  q.world = 16;
  q.tp = 4;
  q.plan = "ddp";
  q.reduce_dtype = "fp32";
  q.distributed_optimizer = true;
  const ModelConfig m = load_model(q.model, "");
  for (OptimizerStates states : {OptimizerStates::plan, OptimizerStates::fp32}) {
    const MemoryPerGpu mem = memory_per_gpu(build_schedule(q), m, q, states);
    EXPECT_EQ(mem.params_bytes, kTpRank * 2);
    EXPECT_EQ(mem.grads_bytes, kTpRank * 4);
    EXPECT_EQ(mem.optimizer_bytes, kTpRank / 4 * 12);  // 11,723,378,688 B: what ZeRO-1 saves
    EXPECT_EQ(mem.gathered_bytes, 0u);
    EXPECT_EQ(mem.activations_bytes, activation_bytes(m, q));
  }
  q.distributed_optimizer = false;
  const MemoryPerGpu ddp = memory_per_gpu(build_schedule(q), m, q, OptimizerStates::plan);
  EXPECT_EQ(ddp.params_bytes, kTpRank * 2);
  EXPECT_EQ(ddp.optimizer_bytes, kTpRank * 4);
}

TEST(AdviseMemory, ApexRemaindersKeepTenBytesAParameter) {
  const Case c = qwen7b(true);
  EXPECT_EQ(memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::fp32_remainders)
                .optimizer_bytes,
            kShardNumel * 10);
  WorkloadRequest q;
  q.model = "nemotron-4-15b";
  q.world = 16;
  q.tp = 4;
  q.plan = "ddp";
  q.distributed_optimizer = true;
  const MemoryPerGpu mem = memory_per_gpu(build_schedule(q), load_model(q.model, ""), q,
                                          OptimizerStates::fp32_remainders);
  EXPECT_EQ(mem.optimizer_bytes, kTpRank / 4 * 10);
  EXPECT_TRUE(mem.grads_persistent);
}

TEST(AdviseMemory, AFusedLossKeepsNoFp32Logits) {
  Case c = qwen7b(true);
  const MemoryPerGpu eager = memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::plan);
  c.request.loss = "fused";
  const MemoryPerGpu fused = memory_per_gpu(c.schedule, c.model, c.request, OptimizerStates::plan);
  EXPECT_EQ(eager.activations_bytes - fused.activations_bytes, 4096ULL * 152064 * 4);
  // One kernel each way over the bf16 logits instead of an fp32 copy's five.
  const auto loss_kernels = [](const Schedule& s) {
    std::vector<std::string> labels;
    for (const ScheduleOp& o : s.ops)
      if (!o.is_collective())
        for (const KernelSlice& k : o.compute().kernels)
          if (k.label.find("loss") != std::string::npos) labels.push_back(k.label);
    return labels;
  };
  const std::vector<std::string> fused_kernels = loss_kernels(build_schedule(c.request));
  ASSERT_EQ(fused_kernels.size(), 2u);
  EXPECT_NE(fused_kernels[0].find("cross_entropy_fwd"), std::string::npos) << fused_kernels[0];
  EXPECT_NE(fused_kernels[1].find("cross_entropy_bwd (in place)"), std::string::npos);
  EXPECT_GT(loss_kernels(c.schedule).size(), 5u);
  c.request.loss = "bogus";
  EXPECT_THROW(build_schedule(c.request), UsageError);
}

TEST(AdviseMemory, TheAllocatorsSlackFallsOnWhatChurnsAndFitIsARange) {
  MemoryPerGpu m;
  m.params_bytes = 10 * kGiB;
  m.grads_bytes = 10 * kGiB;
  m.optimizer_bytes = 20 * kGiB;
  m.activations_bytes = 20 * kGiB;
  // FSDP's and DDP's gradients are freed every step: they churn with the activations.
  EXPECT_EQ(m.persistent_bytes(), 30 * kGiB);
  EXPECT_EQ(m.reserved_bytes(0.5), 30 * kGiB + 45 * kGiB);
  // The distributed optimizer's gradient buffer stays.
  m.grads_persistent = true;
  EXPECT_EQ(m.persistent_bytes(), 40 * kGiB);
  EXPECT_EQ(m.reserved_bytes(0.5), 40 * kGiB + 30 * kGiB);
  MemoryBudget budget;
  const auto room = [&](double gib) {
    budget.capacity_bytes =
        static_cast<std::uint64_t>(gib * kGiB) + kCudaContextBytes + kNcclBuffersBytes;
  };
  room(40 + 20 * (1 + kSlackHigh));
  EXPECT_EQ(memory_fit(m, budget), MemoryFit::fits);
  room(40 + 20 * (1 + kSlackHigh) - 1);
  EXPECT_EQ(memory_fit(m, budget), MemoryFit::tight);
  room(40 + 20 * (1 + kSlackLow));
  EXPECT_EQ(memory_fit(m, budget), MemoryFit::tight);
  room(40 + 20 * (1 + kSlackLow) - 0.01);
  EXPECT_EQ(memory_fit(m, budget), MemoryFit::no_fit);
}

TEST(AdviseMemory, OptimizerStatesChoiceIsChecked) {
  EXPECT_EQ(parse_optimizer_states("fp32"), OptimizerStates::fp32);
  EXPECT_EQ(parse_optimizer_states("fp32-remainders"), OptimizerStates::fp32_remainders);
  EXPECT_THROW(parse_optimizer_states("fp16"), UsageError);
}

}  // namespace
}  // namespace collreplay::project
