// --optimizer auto follows torch 2.11's own default (optimizer.py _default_to_fused_or_foreach):
// foreach over DTensor (FSDP2) and Parameter (DDP, FSDP1) parameters on CUDA, the for-loop on the
// CPU; the schedule's optimizer phase launches what that implementation launches.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/step/optimizer_step.hpp"

namespace collreplay {
namespace {

const ComputeOp& optimizer_op(const Schedule& s) {
  for (const ScheduleOp& op : s.ops)
    if (op.phase == Phase::optimizer) return op.compute();
  throw std::runtime_error("no optimizer op");
}

std::uint64_t launches(const ComputeOp& op) {
  std::uint64_t n = 0;
  for (const KernelSlice& k : op.kernels) n += k.launches;
  return n;
}

TEST(WorkloadsOptimizer, AutoIsForeachOnCudaForEveryPlan) {
  for (const char* plan : {"fsdp2", "fsdp1", "ddp"}) {
    WorkloadRequest q = test::request("qwen2.5-0.5b", 2, plan);
    const OptimizerChoice c = request_optimizer(q);
    EXPECT_EQ(c.kind, OptimizerKind::adamw_foreach) << plan;
    EXPECT_NE(c.why.find("foreach"), std::string::npos) << c.why;
    EXPECT_NE(c.why.find("CUDA"), std::string::npos) << c.why;
    EXPECT_NE(c.why.find(std::string(plan) == "fsdp2" ? "DTensor" : "Parameter"),
              std::string::npos)
        << plan << ": " << c.why;
  }
}

TEST(WorkloadsOptimizer, AutoIsTheLoopOnTheCpu) {
  WorkloadRequest q = test::request("qwen2.5-0.5b", 2, "fsdp2");
  q.param_device = "cpu";
  const OptimizerChoice c = request_optimizer(q);
  EXPECT_EQ(c.kind, OptimizerKind::adamw_loop);
  EXPECT_NE(c.why.find("for-loop"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("CPU"), std::string::npos) << c.why;
}

TEST(WorkloadsOptimizer, AskedForIsKeptAndBadNamesAreRefused) {
  WorkloadRequest q = test::request("qwen2.5-0.5b", 2, "fsdp2");
  q.param_device = "cpu";  // an explicit choice does not depend on the device
  for (auto [name, kind] : {std::pair{"adamw-loop", OptimizerKind::adamw_loop},
                            std::pair{"adamw-foreach", OptimizerKind::adamw_foreach},
                            std::pair{"adamw-fused", OptimizerKind::adamw_fused},
                            std::pair{"none", OptimizerKind::none}}) {
    q.optimizer = name;
    EXPECT_EQ(request_optimizer(q).kind, kind) << name;
    EXPECT_EQ(request_optimizer(q).why, "asked for");
  }
  q.optimizer = "sgd";
  EXPECT_THROW(request_optimizer(q), UsageError);
  q.optimizer = "auto";
  q.param_device = "tpu";
  EXPECT_THROW(build_schedule(q), UsageError);
}

TEST(WorkloadsOptimizer, AutoOnCudaLaunchesWhatForeachLaunches) {
  // Qwen2.5-0.5B, 4 layers, FSDP2 at world 2: 12 tensors per layer plus the root's 2 (tied
  // head), 8 passes each; the loop launches a kernel per tensor per pass, foreach a few per pass.
  WorkloadRequest q = test::request("qwen2.5-0.5b", 2, "fsdp2");
  q.layers = 4;
  const Schedule automatic = build_schedule(q);
  q.optimizer = "adamw-foreach";
  const Schedule foreach = build_schedule(q);
  q.optimizer = "adamw-loop";
  const Schedule loop = build_schedule(q);
  EXPECT_EQ(launches(optimizer_op(automatic)), launches(optimizer_op(foreach)));
  EXPECT_EQ(launches(optimizer_op(loop)), 8u * (4 * 12 + 2));
  // foreach: per pass, one launch per 320 chunks of 65536 elements (multi_tensor_apply's
  // limits) over this rank's shard: (4 x 14,912,384 + 136,135,552) / 2 = 97,892,544 elements
  // (FSDP2 pads each dim 0 to the world: a few more), 1,494 chunks, 5 launches; a tenth of the
  // loop's.
  EXPECT_EQ(launches(optimizer_op(foreach)), 8u * 5);
  EXPECT_LE(launches(optimizer_op(foreach)), launches(optimizer_op(loop)) / 10);
  q.optimizer = "auto";
  q.param_device = "cpu";
  EXPECT_EQ(launches(optimizer_op(build_schedule(q))), launches(optimizer_op(loop)));
}


// foreach and fused run torch's multi_tensor_apply: each slice is a multi_tensor kernel over
// tensor lists of the parameter's dtype, launched once per 320 chunks of 65536 elements or per
// the op's depth cap of tensors (110, 64, 48, 36 for depth 1 to 4; 96 for a scalar list).
struct Expected {
  std::uint64_t reads, writes, launches;
};

void expect_slices(const Work& w, const std::vector<Expected>& want, std::uint64_t numel,
                   std::uint64_t element_bytes, KernelKind kind) {
  ASSERT_EQ(w.kernels.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const KernelSlice& k = w.kernels[i];
    EXPECT_EQ(k.kind, kind) << k.label;
    EXPECT_EQ(k.elements, numel) << k.label;
    EXPECT_EQ(k.read_bytes, want[i].reads * numel * element_bytes) << k.label;
    EXPECT_EQ(k.write_bytes, want[i].writes * numel * element_bytes) << k.label;
    EXPECT_EQ(k.launches, want[i].launches) << k.label;
    if (kind != KernelKind::multi_tensor) continue;
    EXPECT_EQ(k.operand_element_bytes, element_bytes) << k.label;
    const MultiTensorOperands lists = multi_tensor_operands(k);
    EXPECT_EQ(lists.reads, want[i].reads) << k.label;
    EXPECT_EQ(lists.writes, want[i].writes) << k.label;
  }
}

TEST(WorkloadsOptimizer, FusedIsOneMultiTensorKernelOfDepthFour) {
  // 1000 small bf16 tensors: the tensor cap sets the launches (36 per launch at depth 4).
  const std::uint64_t numel = 1000 * 4096;
  expect_slices(optimizer_kernels(OptimizerKind::adamw_fused, 1000, numel, 2), {{4, 3, 28}},
                numel, 2, KernelKind::multi_tensor);
  // Few large fp32 tensors: 320 chunks of 65536 elements per launch.
  const std::uint64_t big = 100ull * 320 * 65536 + 1;
  expect_slices(optimizer_kernels(OptimizerKind::adamw_fused, 10, big, 4), {{4, 3, 101}}, big, 4,
                KernelKind::multi_tensor);
}

TEST(WorkloadsOptimizer, ForeachPassesAreMultiTensorKernelsWithTheirDepthsCaps) {
  const std::uint64_t numel = 1000 * 4096;
  // mul_ (depth 1: 110), lerp_ (2: 64), mul_, addcmul_ (3: 48), sqrt (2, out of place),
  // div_ by a scalar per tensor (1: 96), add_ (1), addcdiv_ (3).
  expect_slices(optimizer_kernels(OptimizerKind::adamw_foreach, 1000, numel, 2),
                {{1, 1, 10},
                 {2, 1, 16},
                 {1, 1, 10},
                 {2, 1, 21},
                 {1, 1, 16},
                 {1, 1, 11},
                 {1, 1, 10},
                 {3, 1, 21}},
                numel, 2, KernelKind::multi_tensor);
}

TEST(WorkloadsOptimizer, TheLoopStaysVectorKernelsPerTensor) {
  const std::uint64_t numel = 1000 * 4096;
  const Work w = optimizer_kernels(OptimizerKind::adamw_loop, 1000, numel, 2);
  expect_slices(w,
                {{1, 1, 1000},
                 {2, 1, 1000},
                 {1, 1, 1000},
                 {2, 1, 1000},
                 {1, 1, 1000},
                 {1, 1, 1000},
                 {1, 1, 1000},
                 {3, 1, 1000}},
                numel, 2, KernelKind::vector);
  for (const KernelSlice& k : w.kernels) EXPECT_EQ(k.operand_element_bytes, 0u) << k.label;
}

TEST(WorkloadsOptimizer, ScheduleOptimizerOpCarriesTheParamDtype) {
  WorkloadRequest q = test::request("qwen2.5-0.5b", 2, "fsdp2");
  q.layers = 2;
  q.optimizer = "adamw-fused";
  const Schedule fused_schedule = build_schedule(q);
  const ComputeOp& fused = optimizer_op(fused_schedule);
  ASSERT_EQ(fused.kernels.size(), 1u);
  EXPECT_EQ(fused.kernels[0].kind, KernelKind::multi_tensor);
  EXPECT_EQ(fused.kernels[0].operand_element_bytes, 2u);  // bf16 parameters
  EXPECT_EQ(multi_tensor_operands(fused.kernels[0]).reads, 4u);
  q.param_dtype = "fp32";
  q.optimizer = "adamw-foreach";
  const Schedule foreach = build_schedule(q);
  for (const KernelSlice& k : optimizer_op(foreach).kernels) {
    EXPECT_EQ(k.kind, KernelKind::multi_tensor) << k.label;
    EXPECT_EQ(k.operand_element_bytes, 4u) << k.label;
  }
}

}  // namespace
}  // namespace collreplay
