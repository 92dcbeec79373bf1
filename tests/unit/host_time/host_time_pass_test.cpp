// A calibration's cost per pass (host_time_calibrate.py fits it beside the cost per launch from
// two model depths): read from the file, 0 in older files, and paid once per forward and once
// per backward pass of each micro-batch, on the pass's first compute op; the foreach and fused
// optimizers' costs per step and per tensor, once on their own step.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "common/errors.hpp"
#include "tests/unit/workloads/workloads_test_util.hpp"
#include "workloads/plan/step/host_time_file.hpp"

namespace collreplay {
namespace {

std::string calibration(bool with_pass_costs) {
  return std::string(R"({"host": "h", "cpu": "c", "torch": "t", "gpu": "g", "forward_us": 40,
    "backward_us": 30, "optimizer_loop_us": 60, "optimizer_multi_us": 8)") +
         (with_pass_costs ? R"(, "forward_fixed_us": 4500, "backward_fixed_us": 4000})" : "}");
}

TEST(HostTimePass, ReadFromTheFileAndZeroInOlderFiles) {
  const HostTimeSetting with = parse_host_time_calibration(calibration(true), "cal.json");
  EXPECT_DOUBLE_EQ(with.per_launch.forward_fixed_us, 4500);
  EXPECT_DOUBLE_EQ(with.per_launch.backward_fixed_us, 4000);
  EXPECT_NE(with.source.find("forward 4500, backward 4000 us per pass"), std::string::npos)
      << with.source;
  const HostTimeSetting older = parse_host_time_calibration(calibration(false), "old.json");
  EXPECT_DOUBLE_EQ(older.per_launch.forward_fixed_us, 0);
  EXPECT_DOUBLE_EQ(older.per_launch.backward_fixed_us, 0);
}

double host_us_of(const Schedule& s, Phase phase) {
  double us = 0;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective() && op.phase == phase) us += op.compute().host_us;
  return us;
}

TEST(HostTimePass, EachPassPaysItsCostOnceOnItsFirstComputeOp) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::filesystem::path with = dir / "collreplay_pass_with.json";
  const std::filesystem::path without = dir / "collreplay_pass_without.json";
  std::ofstream(with) << calibration(true);
  std::ofstream(without) << calibration(false);
  WorkloadRequest q = test::request("qwen2.5-0.5b", 1, "fsdp2");
  q.gpus_per_node = 1;
  q.layers = 2;
  q.micro_batches = 2;
  q.host_time = with.string();
  const Schedule paying = build_schedule(q);
  q.host_time = without.string();
  const Schedule per_launch_only = build_schedule(q);
  // Two micro-batches: two forward passes, two backward passes.
  EXPECT_NEAR(host_us_of(paying, Phase::forward) - host_us_of(per_launch_only, Phase::forward),
              2 * 4500, 1e-6);
  const double backward_extra =
      host_us_of(paying, Phase::backward) + host_us_of(paying, Phase::recompute) -
      host_us_of(per_launch_only, Phase::backward) - host_us_of(per_launch_only, Phase::recompute);
  EXPECT_NEAR(backward_extra, 2 * 4000, 1e-6);
  // On the pass's first compute op.
  for (const ScheduleOp& op : paying.ops)
    if (!op.is_collective() && op.phase == Phase::forward) {
      EXPECT_GE(op.compute().host_us, 4500);
      break;
    }
  std::filesystem::remove(with);
  std::filesystem::remove(without);
}

// Each multi-tensor optimizer's cost per step and per parameter tensor: read when the file has
// them (0 in older files), paid on the optimizer step of its own kind of AdamW, foreach's on the
// foreach step and fused's on the fused step: once, and once per tensor of the shard (2 layers of
// the 0.5B, tied embedding: the embedding, 12 tensors a layer and the final norm, 26).
TEST(HostTimePass, EachMultiTensorOptimizerPaysItsOwnStepAndTensorCosts) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::filesystem::path with = dir / "collreplay_opt_with.json";
  const std::filesystem::path without = dir / "collreplay_opt_without.json";
  std::string text = calibration(true);
  text.insert(text.rfind('}'),
              R"(, "optimizer_multi_fixed_us": 900, "optimizer_multi_tensor_us": 10,
                                  "optimizer_fused_fixed_us": 300, "optimizer_fused_tensor_us": 30)");
  std::ofstream(with) << text;
  std::ofstream(without) << calibration(true);
  const HostTimeSetting read = parse_host_time_calibration(text, "cal.json");
  EXPECT_DOUBLE_EQ(read.per_launch.optimizer_multi_fixed_us, 900);
  EXPECT_DOUBLE_EQ(read.per_launch.optimizer_multi_tensor_us, 10);
  EXPECT_DOUBLE_EQ(read.per_launch.optimizer_fused_fixed_us, 300);
  EXPECT_DOUBLE_EQ(read.per_launch.optimizer_fused_tensor_us, 30);
  EXPECT_NE(read.source.find("fused optimizer 300 us per step and 30.0 per parameter tensor"),
            std::string::npos)
      << read.source;
  WorkloadRequest q = test::request("qwen2.5-0.5b", 1, "fsdp2");
  q.gpus_per_node = 1;
  q.layers = 2;
  for (const auto& [optimizer, paid_us] :
       {std::pair{"adamw-foreach", 900 + 26 * 10}, std::pair{"adamw-fused", 300 + 26 * 30},
        std::pair{"adamw-loop", 0}}) {
    q.optimizer = optimizer;
    q.host_time = with.string();
    const Schedule s = build_schedule(q);
    const double paying = host_us_of(s, Phase::optimizer);
    // Each launch of a foreach call after its first costs the calibration's launch.
    for (const ScheduleOp& op : s.ops) {
      if (op.phase != Phase::optimizer || op.is_collective()) continue;
      for (const KernelSlice& k : op.compute().kernels) {
        EXPECT_DOUBLE_EQ(k.host_us_per_launch, k.kind == KernelKind::multi_tensor ? 8 : 0)
            << optimizer << " " << k.label;
      }
    }
    q.host_time = without.string();
    const double launches_only = host_us_of(build_schedule(q), Phase::optimizer);
    EXPECT_NEAR(paying - launches_only, paid_us, 1e-6) << optimizer;
  }
  std::filesystem::remove(with);
  std::filesystem::remove(without);
}

// A calibration with one of the fused step's two figures but not the other is one a person
// edited or a script half wrote: said, naming the missing one, not read as 0.
TEST(HostTimePass, AFusedStepFigureWithoutItsPairIsAUsageError) {
  std::string text = calibration(true);
  text.insert(text.rfind('}'), R"(, "optimizer_fused_fixed_us": 300)");
  try {
    parse_host_time_calibration(text, "cal.json");
    FAIL() << "read a calibration without optimizer_fused_tensor_us";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'optimizer_fused_tensor_us'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace collreplay
