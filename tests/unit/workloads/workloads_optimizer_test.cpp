// --optimizer auto follows torch 2.11's own default (optimizer.py _default_to_fused_or_foreach):
// foreach over DTensor (FSDP2) and Parameter (DDP, FSDP1) parameters on CUDA, the for-loop on the
// CPU; the schedule's optimizer phase launches what that implementation launches.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/resolved_request.hpp"

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

}  // namespace
}  // namespace collreplay
