// The optimizer step after the step's last gradient reduction: AdamW over this rank's shard of
// every parameter, as torch.optim.AdamW runs it (bf16 parameters keep bf16 states). Its default
// (foreach=None) takes the for-loop over FSDP2's DTensor parameters and the multi-tensor
// (foreach) path over plain tensors (FSDP1 flat parameters, DDP).
#pragma once
#include <cstdint>
#include <string_view>

#include "workloads/model/work.hpp"
#include "workloads/plan/step/host_time.hpp"

namespace collreplay {

enum class OptimizerKind { none, adamw_loop, adamw_foreach, adamw_fused };

// "auto" (the default AdamW for the plan: loop for fsdp2, foreach otherwise), "adamw-loop",
// "adamw-foreach", "adamw-fused", "none"; UsageError otherwise.
OptimizerKind parse_optimizer(std::string_view text, bool dtensor_params);
std::string_view optimizer_name(OptimizerKind kind);

// The kernels of one step over `tensors` parameter tensors holding `numel` elements of
// `bytes` each (weight decay, first and second moments, bias-corrected update).
Work optimizer_kernels(OptimizerKind kind, std::uint64_t tensors, std::uint64_t numel,
                       std::uint64_t bytes);
// Host time to issue them.
double optimizer_host_us(OptimizerKind kind, const Work& kernels, const HostTimePerLaunch& host);

}  // namespace collreplay
