#include "workloads/plan/step/optimizer_step.hpp"

#include <algorithm>
#include <string>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// torch's multi_tensor_apply (aten/src/ATen/native/cuda/MultiTensorApply.cuh) launches a kernel
// when its blocks (one per 65536-element chunk of a tensor) reach 320 or its tensors reach the cap
// for the op's depth (tensor lists): 110, 64, 48, 36, 30 for depth 1 to 5; 96, 64, 48, 36, 30 for
// ops that take a list of scalars (a value per tensor).
constexpr std::uint64_t kMultiTensorElementsPerLaunch = 320ULL * 65536;
constexpr std::uint64_t kTensorsDepth1 = 110, kTensorsDepth1ScalarList = 96, kTensorsDepth2 = 64,
                        kTensorsDepth3 = 48, kTensorsDepth4 = 36;

struct Pass {
  const char* what;
  std::uint64_t reads, writes;       // distinct tensors of the parameter's size read and written
  std::uint64_t tensors_per_launch;  // multi_tensor_apply's cap for the op's depth
};

// torch 2.11 torch/optim/adam.py _multi_tensor_adam with decoupled weight decay (AdamW):
// _foreach_mul_(params, 1 - lr wd); _foreach_lerp_(exp_avgs, grads, 1 - b1);
// _foreach_mul_(exp_avg_sqs, b2); _foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - b2);
// denom = _foreach_sqrt(exp_avg_sqs) (a new list); _foreach_div_(denom, bias_correction2_sqrt)
// (a scalar per tensor); _foreach_add_(denom, eps); _foreach_addcdiv_(params, exp_avgs, denom,
// step_size) (a scalar per tensor). addcmul_ has depth 3 but reads grads twice at one address:
// two distinct tensors.
constexpr Pass kAdamwPasses[] = {
    {"param.mul_(1 - lr * wd)", 1, 1, kTensorsDepth1},
    {"exp_avg.lerp_(grad)", 2, 1, kTensorsDepth2},
    {"exp_avg_sq.mul_(beta2)", 1, 1, kTensorsDepth1},
    {"exp_avg_sq.addcmul_(grad, grad)", 2, 1, kTensorsDepth3},
    {"exp_avg_sq.sqrt()", 1, 1, kTensorsDepth2},
    {"/ bias_correction2", 1, 1, kTensorsDepth1ScalarList},
    {"+ eps", 1, 1, kTensorsDepth1},
    {"param.addcdiv_(exp_avg, denom)", 3, 1, kTensorsDepth3},
};

std::uint64_t multi_tensor_launches(std::uint64_t tensors, std::uint64_t numel,
                                    std::uint64_t tensors_per_launch) {
  const std::uint64_t by_tensors = (tensors + tensors_per_launch - 1) / tensors_per_launch;
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
  // The for-loop runs TensorIterator's vectorized kernels a tensor at a time; foreach and fused
  // run multi_tensor_apply over the tensor lists.
  const bool loop = kind == OptimizerKind::adamw_loop;
  auto slice = [&](const std::string& what, std::uint64_t reads, std::uint64_t writes,
                   std::uint64_t launches) {
    KernelSlice k;
    k.kind = loop ? KernelKind::vector : KernelKind::multi_tensor;
    if (!loop) k.operand_element_bytes = bytes;
    k.label = "optimizer " + std::string(optimizer_name(kind)) + ": " + what;
    k.launches = launches;
    k.elements = numel;
    k.read_bytes = reads * tensor_bytes;
    k.write_bytes = writes * tensor_bytes;
    k.flops = static_cast<double>(numel) * 2;
    w.add_kernel(std::move(k));
  };
  if (kind == OptimizerKind::adamw_fused) {
    // One kernel of depth 4 reads param, grad, exp_avg, exp_avg_sq and writes param, exp_avg and
    // exp_avg_sq back (grad too only under a GradScaler).
    slice("fused AdamW", 4, 3, multi_tensor_launches(tensors, numel, kTensorsDepth4));
    return w;
  }
  for (const Pass& p : kAdamwPasses)
    slice(p.what, p.reads, p.writes,
          loop ? tensors : multi_tensor_launches(tensors, numel, p.tensors_per_launch));
  return w;
}

double optimizer_host_us(OptimizerKind kind, const Work& kernels, std::uint64_t tensors,
                         const HostTimePerLaunch& host) {
  const double per_launch =
      kind == OptimizerKind::adamw_loop ? host.optimizer_loop_us : host.optimizer_multi_us;
  const double launches_us = static_cast<double>(kernels.launches()) * per_launch;
  // Each multi-tensor step's per-step and per-tensor costs were fitted on steps of its own kind
  // (foreach's ~10 calls dispatched over DTensors, fused's two), the Python around them alike.
  const auto n = static_cast<double>(tensors);
  if (kind == OptimizerKind::adamw_foreach)
    return launches_us + host.optimizer_multi_fixed_us + n * host.optimizer_multi_tensor_us;
  if (kind == OptimizerKind::adamw_fused)
    return launches_us + host.optimizer_fused_fixed_us + n * host.optimizer_fused_tensor_us;
  return launches_us;
}

}  // namespace collreplay
