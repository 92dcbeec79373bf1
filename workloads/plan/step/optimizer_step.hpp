// The optimizer step after the step's last gradient reduction: AdamW over this rank's shard of
// every parameter, as torch.optim.AdamW runs it (bf16 parameters keep bf16 states). Its default
// (neither fused nor foreach given) follows torch 2.11's _default_to_fused_or_foreach: foreach
// when every parameter is of a foreach type (Tensor, Parameter, and DTensor, which
// torch.distributed.tensor appends) on a foreach device (cuda, xpu), else the for-loop.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "workloads/model/work.hpp"
#include "workloads/plan/step/host_time.hpp"

namespace collreplay {

enum class OptimizerKind { none, adamw_loop, adamw_foreach, adamw_fused };

// What torch.optim is handed: DTensors (FSDP2, tensor parallel) or nn.Parameters (DDP; FSDP1,
// whose FlatParameter.__new__ returns a plain nn.Parameter, and its use_orig_params views).
enum class OptimizerParams { dtensor, parameter };

struct OptimizerChoice {
  OptimizerKind kind = OptimizerKind::adamw_foreach;
  std::string why;  // one line: why auto picked it, or that it was asked for
};

// "auto" (torch's rule above, for parameters of `params` type on `param_device`: "cuda" or
// "cpu"), "adamw-loop", "adamw-foreach", "adamw-fused", "none"; UsageError otherwise.
OptimizerChoice choose_optimizer(std::string_view text, OptimizerParams params,
                                 std::string_view param_device);
std::string_view optimizer_name(OptimizerKind kind);

// The kernels of one step over `tensors` parameter tensors holding `numel` elements of
// `bytes` each (weight decay, first and second moments, bias-corrected update).
Work optimizer_kernels(OptimizerKind kind, std::uint64_t tensors, std::uint64_t numel,
                       std::uint64_t bytes);
// Host time to issue them, over `tensors` parameter tensors.
double optimizer_host_us(OptimizerKind kind, const Work& kernels, std::uint64_t tensors,
                         const HostTimePerLaunch& host);

}  // namespace collreplay
