#include "bench/compute/compute_model.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "bench/compute/compute_scale.hpp"
#include "bench/compute/launch_order.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

using Clock = std::chrono::steady_clock;

// Memory-bound kernels reach about this share of the datasheet bandwidth (elementwise kernels of
// PyTorch on an H100: 2.9-3.1 of 3.35 TB/s).
constexpr double kBandwidthEfficiency = 0.9;
// Per-element kernels (broadcast, strided, dtype-converting operands) are bound by index
// arithmetic on the CUDA cores, so their rate follows the GPU's stated fp32 (non-tensor) peak,
// not its tensor-core peak: elements/s = this x fp32 FLOP/s. The value keeps the 340 G elements/s
// this model has always used for an H100 (67 TFLOP/s fp32: about 200 fp32 instructions an
// element, the offset arithmetic of three strided operands); that rate itself is not yet measured
// here: sweeps/gpu/multi_tensor/bandwidth.sh times the GPU engine's generic kernel and
// torch_bandwidth.py torch's strided elementwise kernel beside it (generic rows).
constexpr double kGenericElementsPerFp32Flop = 340e9 / 67e12;
// No kernel takes less than its launch on the device.
constexpr double kMinKernelMs = 0.002;

// One op on the two timelines, in ms: the host issues its launches one after another from
// `host_ready_ms` (it may be ahead of the device: it queues without waiting), each launch
// starting once issued and once the device is free (at `device_free_ms` first). Returns the
// device's end; advances host_ready_ms past the op's issue (and past the device's work at a
// sync).
double run_timelines(const ComputeOp& op, const ComputeModel& model, double scale,
                     double& host_ready_ms, double device_free_ms) {
  double device = device_free_ms;
  for (const Launch& l : launch_order(op, scale)) {
    host_ready_ms += l.host_us / 1e3;
    const double start = std::max(host_ready_ms, device);
    if (l.is_gemm)
      device = start + std::max(modeled_ms({l.gemm}, model), kMinKernelMs);
    else if (l.kernel.kind == KernelKind::sync)
      host_ready_ms = std::max(host_ready_ms, device);
    else
      device = start + modeled_kernel_ms(l.kernel, model);
  }
  return device;
}

std::string known_gpus() {
  std::string names;
  for (const GpuPeak& g : kGpuPeaks) names += (names.empty() ? "" : ", ") + std::string(g.name);
  return names;
}

// An instant on the engine's timeline: done once the clock has passed it.
class ModelEvent final : public StreamEvent {
 public:
  explicit ModelEvent(Clock::time_point at) : at_(at) {}
  bool query() override { return Clock::now() >= at_; }
  void synchronize() override { std::this_thread::sleep_until(at_); }
  double elapsed_ms_since(const StreamEvent& earlier) const override {
    const auto* other = dynamic_cast<const ModelEvent*>(&earlier);
    if (!other) throw RuntimeError("modeled compute: the earlier event is not a modeled one");
    return std::chrono::duration<double, std::milli>(at_ - other->at_).count();
  }
  void* native_handle() const override { return nullptr; }

 private:
  Clock::time_point at_;
};

class ModelEngine final : public ComputeEngine {
 public:
  ModelEngine(const ComputeModel& model, double dilation) : model_(model), dilation_(dilation) {
    if (!(dilation > 0) || !std::isfinite(dilation))
      throw UsageError("--dilate must be a number > 0");
  }

  std::string description() const override {
    char text[160];
    std::snprintf(text, sizeof text, "modeled %s at %g%% of %.1f bf16 TFLOP/s%s",
                  std::string(model_.gpu.name).c_str(), model_.mfu * 100,
                  model_.gpu.bf16_dense_tflops,
                  dilation_ == 1 ? "" : (", dilated " + format_dilation()).c_str());
    return text;
  }
  bool enqueues_on_device() const override { return false; }
  std::uint64_t reserve(const std::vector<GemmShape>&, DType) override { return 0; }

  void issue(const ComputeOp& op, double scale,
             std::span<const std::shared_ptr<StreamEvent>>) override {
    // Both timelines in undilated ms from now. The host's may lie in the past: it issued the
    // step's earlier ops ahead of the device (the executor hands an op over only once its
    // dependencies are done, which is not when a framework's host gets to it).
    const Clock::time_point now = Clock::now();
    auto ms_from_now = [&](Clock::time_point t) {
      return std::chrono::duration<double, std::milli>(t - now).count() / dilation_;
    };
    double host_ms = ms_from_now(host_);
    const double device_end_ms =
        run_timelines(op, model_, scale, host_ms, std::max(0.0, ms_from_now(tail_)));
    auto at = [&](double ms) {
      return now + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double, std::milli>(ms * dilation_));
    };
    tail_ = std::max(tail_, at(device_end_ms));
    host_ = at(host_ms);
  }
  void begin_step() override { host_ = Clock::now(); }
  std::shared_ptr<StreamEvent> record() override {
    return std::make_shared<ModelEvent>(std::max(Clock::now(), tail_));
  }
  void synchronize() override { std::this_thread::sleep_until(tail_); }

 private:
  std::string format_dilation() const {
    char text[32];
    std::snprintf(text, sizeof text, "x%g", dilation_);
    return text;
  }
  ComputeModel model_;
  double dilation_;
  Clock::time_point tail_{};  // when the last issued op ends on the device
  Clock::time_point host_{};  // when the host has issued the last op
};

}  // namespace

std::string ComputeModel::name() const {
  char text[64];
  std::snprintf(text, sizeof text, "model:%s@%g", std::string(gpu.name).c_str(), mfu);
  return text;
}

bool is_compute_model(std::string_view spec) { return spec.starts_with("model:"); }

ComputeModel parse_compute_model(std::string_view spec) {
  if (!is_compute_model(spec))
    throw UsageError("--compute '" + std::string(spec) + "' is not model:GPU[@MFU]");
  std::string_view rest = spec.substr(6);
  const std::size_t at = rest.find('@');
  std::string gpu(rest.substr(0, at));
  for (char& c : gpu) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::optional<GpuPeak> peak = find_gpu_peak(gpu);
  if (!peak)
    throw UsageError("--compute " + std::string(spec) + ": unknown GPU '" + gpu +
                     "' (known: " + known_gpus() + ")");
  ComputeModel model{*peak, kDefaultModelMfu};
  if (at != std::string_view::npos) {
    const std::string text(rest.substr(at + 1));
    char* end = nullptr;
    model.mfu = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(model.mfu > 0) || model.mfu > 1)
      throw UsageError("--compute " + std::string(spec) + ": MFU '" + text +
                       "' must be a fraction in (0, 1], like 0.5");
  }
  return model;
}

double modeled_ms(const std::vector<GemmShape>& gemms, const ComputeModel& model) {
  double flops = 0;
  for (const GemmShape& g : gemms) flops += gemm_shape_flops(g);
  return flops / (model.gpu.bf16_dense_tflops * 1e12 * model.mfu) * 1e3;
}

double modeled_kernel_ms(const KernelSlice& k, const ComputeModel& model) {
  if (k.kind == KernelKind::timed) return k.duration_us / 1e3;
  if (k.kind == KernelKind::sync) return 0;
  // vector, multi_tensor, reduce and copy alike: bytes over a share of HBM bandwidth. A
  // multi_tensor kernel is slower than that on a GPU (narrow loads, few blocks a launch), but no
  // fitted constant stands for it here: the GPU engine runs and measures it.
  const double bytes = static_cast<double>(k.read_bytes + k.write_bytes);
  double ms = bytes / (model.gpu.hbm_tbytes_per_s * 1e12 * kBandwidthEfficiency) * 1e3;
  if (k.kind == KernelKind::generic)
    ms = std::max(ms, static_cast<double>(k.elements) /
                          (kGenericElementsPerFp32Flop * model.gpu.fp32_tflops * 1e12) * 1e3);
  return std::max(ms, kMinKernelMs);
}

double modeled_op_ms(const ComputeOp& op, const ComputeModel& model) {
  double host_ms = 0;
  const double device_ms = run_timelines(op, model, 1.0, host_ms, 0.0);
  return std::max(device_ms, host_ms);
}

std::unique_ptr<ComputeEngine> make_model_engine(const ComputeModel& model, double dilation) {
  return std::make_unique<ModelEngine>(model, dilation);
}

}  // namespace collreplay
