#include "bench/compute/compute_model.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "bench/compute/compute_scale.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

using Clock = std::chrono::steady_clock;

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
    const double ms = modeled_ms(stretch_gemms(op, scale), model_) * dilation_;
    const Clock::time_point start = std::max(Clock::now(), tail_);
    tail_ = start + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double, std::milli>(ms));
  }
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
  Clock::time_point tail_{};  // when the last issued op ends
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
  for (const GemmShape& g : gemms)
    flops += 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
             static_cast<double>(g.batch);
  return flops / (model.gpu.bf16_dense_tflops * 1e12 * model.mfu) * 1e3;
}

std::unique_ptr<ComputeEngine> make_model_engine(const ComputeModel& model, double dilation) {
  return std::make_unique<ModelEngine>(model, dilation);
}

}  // namespace collreplay
