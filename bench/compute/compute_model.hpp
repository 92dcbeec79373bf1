// The modeled compute engine (--compute model:GPU[@MFU]): each compute op becomes a timed idle
// wait as long as the modeled GPU would take for it, instead of real work: GEMMs at
// FLOPs / (peak x MFU), memory-bound kernels at their bytes over the GPU's memory bandwidth (and,
// for per-element kernels, at its element rate), each launch at least a launch's latency, and
// the framework's host time before each launch on a host timeline the device cannot outrun. On a
// small host real GEMMs fight MPI for the cores and their speed says nothing about a GPU
// cluster; a wait costs no CPU and has the GPU's duration. With dilation D every wait is D times
// longer (the emulated fabric is D times slower too), and callers divide measured times by D.
//
// The engine keeps its own timelines instead of a worker thread: an op's launches start when the
// host has issued them and the device is free, and end their duration later; events complete at
// those instants, so op times are the modeled durations, not the sleep granularity of a loaded
// host.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/compute/compute_engine.hpp"
#include "bench/compute/gpu_peaks.hpp"

namespace collreplay {

// GEMM time is modeled at this fraction of the bf16 dense peak unless @MFU says otherwise. Measured
// (bench/RESULTS.md, "GEMMs beside cuBLAS and torch", 1x H100, sweeps/measured/2026-11-23-h100):
// Qwen2.5-7B's GEMMs at 4096 tokens run at 282-746 TFLOP/s, 29-75% of 989.4 (attention's batched
// GEMMs 28-31%, the projections 50-75%), 8192^3 at 74%: one half sits inside that span. Stated
// (Meta's Llama 3 paper, 16K H100s): 38-43% MFU for whole training steps at scale.
inline constexpr double kDefaultModelMfu = 0.5;

struct ComputeModel {
  GpuPeak gpu;
  double mfu = kDefaultModelMfu;  // (0, 1]
  std::string name() const;       // "model:h100@0.5"
};

// "model:h100", "model:b200@0.4" (GPU names from gpu_peaks.hpp, case-insensitive); UsageError
// naming the known GPUs, or the allowed MFU range.
ComputeModel parse_compute_model(std::string_view spec);

// True when `spec` asks for a modeled engine ("model:..."), so callers can tell it from a real one.
bool is_compute_model(std::string_view spec);

// Modeled milliseconds of `gemms` (2 M N K batch FLOPs each) on `model`, undilated. Pure.
double modeled_ms(const std::vector<GemmShape>& gemms, const ComputeModel& model);
// Device time of one launch of a kernel slice (launches == 1), undilated.
double modeled_kernel_ms(const KernelSlice& kernel, const ComputeModel& model);
// Milliseconds from the first launch of `op` to its end when it runs alone: the host's time
// to issue it and the device's time to run it, whichever holds the other back. Pure.
double modeled_op_ms(const ComputeOp& op, const ComputeModel& model);

// `dilation` (> 0, usually >= 1) stretches every wait (see above).
std::unique_ptr<ComputeEngine> make_model_engine(const ComputeModel& model, double dilation);

}  // namespace collreplay
