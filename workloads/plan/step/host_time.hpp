// What eager PyTorch's host side costs per kernel it launches: Python module code, the
// dispatcher, autograd bookkeeping and FSDP2's hooks between the launches. A GPU faster than
// that waits for its host, which is why small models train below their GEMMs' speed. Read off the
// reference (sweeps/gpu/reference/) with host timers around forward, backward and the optimizer
// step divided by the kernels each launched (bench/RESULTS.md, "Host time per launch").
#pragma once

namespace collreplay {

struct HostTimePerLaunch {
  double forward_us = 0;   // forward (Python module code)
  // autograd's engine (C++) with FSDP2's backward hooks, the activation-checkpoint recompute
  // included: the reference's host time over backward's launches comes out alike for both
  double backward_us = 0;
  double optimizer_loop_us = 0;    // torch.optim's for-loop over DTensor parameters
  double optimizer_multi_us = 0;   // one multi-tensor (foreach / fused) launch
  // What a forward or a backward pass costs the host once, whatever its launches (FSDP2's root
  // hooks, the loss, autograd's start): a calibration fits it beside the per-launch figure from
  // two model depths; the eager defaults were read as per-launch figures alone. Paid on the
  // pass's first compute op.
  double forward_fixed_us = 0;
  double backward_fixed_us = 0;
  // What a foreach optimizer step costs the host once, whatever its launches and tensors
  // (torch.optim's set-up, the ~10 foreach calls, zero_grad), and per parameter tensor of the
  // shard (_init_group's loop, the step counters and bias corrections, DTensor unwrapping and
  // rewrapping each tensor of each foreach call): fitted with the per-launch figure from three
  // foreach steps whose tensors and launches differ apart (host_time_calibrate.py).
  double optimizer_multi_fixed_us = 0;
  double optimizer_multi_tensor_us = 0;
  // The fused step's, beside its launches: two calls where foreach makes about ten, around the
  // same Python (_init_group's loop over the parameters, the grouping by device and dtype,
  // zero_grad), fitted from fused steps at two depths. 0 in the eager defaults and in older
  // calibrations, which charge the fused step its launches alone.
  double optimizer_fused_fixed_us = 0;
  double optimizer_fused_tensor_us = 0;
};

// --host-time eager (the default) and none (a host that never holds the GPU back: CUDA graphs,
// a compiled step); calibrate and FILE: host_time_file.hpp.
inline constexpr HostTimePerLaunch kEagerHostTime{65.0, 50.0, 82.0, 10.0};
// Where kEagerHostTime comes from, said in the run's header: one machine's host, which is why
// --host-time calibrate / FILE exist (host_time_file.hpp; an H200 machine's host read the 0.5B
// step at 27.0 ms where these defaults replay it at 43.2 ms, issue 38).
inline constexpr const char* kEagerHostTimeSource =
    "eager defaults: forward 65, backward 50, optimizer loop 82, multi-tensor 10 us per launch, "
    "read on the 1x H100 80GB HBM3 machine's host with torch 2.11.0+cu130 (2026-11-24; its CPU "
    "model was not recorded); another host differs: --host-time calibrate";
inline constexpr HostTimePerLaunch kNoHostTime{};

}  // namespace collreplay
