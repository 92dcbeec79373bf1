#include "workloads/plan/step/optimizer_step.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// multi_tensor_apply launches a kernel per chunk of tensors and elements.
constexpr std::uint64_t kMultiTensorElementsPerLaunch = 320ULL * 65536;
constexpr std::uint64_t kMultiTensorTensorsPerLaunch = 48;

struct Pass {
  const char* what;
  std::uint64_t reads, writes;  // tensors of the parameter's size read and written
};

// torch.optim.adamw: param.mul_(1 - lr wd); exp_avg.lerp_(grad, 1 - b1); exp_avg_sq.mul_(b2)
// .addcmul_(grad, grad, 1 - b2); denom = (exp_avg_sq.sqrt() / bc2).add_(eps);
// param.addcdiv_(exp_avg, denom, -step_size).
constexpr Pass kAdamwPasses[] = {
    {"param.mul_(1 - lr * wd)", 1, 1}, {"exp_avg.lerp_(grad)", 2, 1},
    {"exp_avg_sq.mul_(beta2)", 1, 1},  {"exp_avg_sq.addcmul_(grad, grad)", 2, 1},
    {"exp_avg_sq.sqrt()", 1, 1},       {"/ bias_correction2", 1, 1},
    {"+ eps", 1, 1},                   {"param.addcdiv_(exp_avg, denom)", 3, 1},
};

std::uint64_t multi_tensor_launches(std::uint64_t tensors, std::uint64_t numel) {
  const std::uint64_t by_tensors =
      (tensors + kMultiTensorTensorsPerLaunch - 1) / kMultiTensorTensorsPerLaunch;
  const std::uint64_t by_elements =
      (numel + kMultiTensorElementsPerLaunch - 1) / kMultiTensorElementsPerLaunch;
  return std::max<std::uint64_t>({by_tensors, by_elements, 1});
}

}  // namespace

OptimizerChoice choose_optimizer(std::string_view text, OptimizerParams params,
                                 std::string_view param_device) {
  const bool cuda = param_device == "cuda";
  if (!cuda && param_device != "cpu")
    throw UsageError("unknown parameter device '" + std::string(param_device) +
                     "' (expected cuda or cpu)");
  if (text == "auto") {
    const std::string kind = params == OptimizerParams::dtensor ? "DTensor" : "Parameter";
    if (cuda)
      return {OptimizerKind::adamw_foreach,
              "auto: torch 2.11 AdamW with neither fused nor foreach given runs foreach over " +
                  kind + " parameters on CUDA"};
    // The host replay (MPI backend, BLAS compute) stands for parameters in host memory.
    return {OptimizerKind::adamw_loop,
            "auto: torch 2.11 AdamW with neither fused nor foreach given runs the for-loop over " +
                kind + " parameters on the CPU (foreach kernels are for cuda and xpu)"};
  }
  const std::string asked = "asked for";
  if (text == "adamw-loop") return {OptimizerKind::adamw_loop, asked};
  if (text == "adamw-foreach") return {OptimizerKind::adamw_foreach, asked};
  if (text == "adamw-fused") return {OptimizerKind::adamw_fused, asked};
  if (text == "none") return {OptimizerKind::none, asked};
  throw UsageError("unknown --optimizer '" + std::string(text) +
                   "' (expected auto, adamw-loop, adamw-foreach, adamw-fused or none)");
}

std::string_view optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::none: return "none";
    case OptimizerKind::adamw_loop: return "adamw-loop";
    case OptimizerKind::adamw_foreach: return "adamw-foreach";
    case OptimizerKind::adamw_fused: return "adamw-fused";
  }
  return "?";
}

Work optimizer_kernels(OptimizerKind kind, std::uint64_t tensors, std::uint64_t numel,
                       std::uint64_t bytes) {
  Work w;
  if (kind == OptimizerKind::none || tensors == 0 || numel == 0) return w;
  const std::uint64_t tensor_bytes = numel * bytes;
  auto slice = [&](const std::string& what, std::uint64_t reads, std::uint64_t writes,
                   std::uint64_t launches) {
    KernelSlice k;
    k.kind = KernelKind::vector;
    k.label = "optimizer " + std::string(optimizer_name(kind)) + ": " + what;
    k.launches = launches;
    k.elements = numel;
    k.read_bytes = reads * tensor_bytes;
    k.write_bytes = writes * tensor_bytes;
    k.flops = static_cast<double>(numel) * 2;
    w.add_kernel(std::move(k));
  };
  if (kind == OptimizerKind::adamw_fused) {
    // One kernel reads param, grad, exp_avg, exp_avg_sq and writes the three states back.
    slice("fused AdamW", 4, 3, multi_tensor_launches(tensors, numel));
    return w;
  }
  const std::uint64_t launches =
      kind == OptimizerKind::adamw_loop ? tensors : multi_tensor_launches(tensors, numel);
  for (const Pass& p : kAdamwPasses) slice(p.what, p.reads, p.writes, launches);
  return w;
}

double optimizer_host_us(OptimizerKind kind, const Work& kernels, const HostTimePerLaunch& host) {
  const double per_launch =
      kind == OptimizerKind::adamw_loop ? host.optimizer_loop_us : host.optimizer_multi_us;
  return static_cast<double>(kernels.launches()) * per_launch;
}

}  // namespace collreplay
