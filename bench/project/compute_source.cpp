#include "bench/project/compute_source.hpp"

#include <filesystem>

#include "bench/compute/compute_model.hpp"
#include "bench/compute/gpu_peaks.hpp"
#include "bench/project/model/measured_points.hpp"
#include "bench/replay/headroom.hpp"
#include "common/errors.hpp"
#include "workloads/model/gemm_slices.hpp"

namespace collreplay::project {
namespace {

// "compute.fwd.s3.layers.2" -> "fwd|layers.2": the phase and the unit, without the op's place in
// the sequence (which a schedule with one more op before it, the embedding, shifts).
std::string unit_key(const std::string& name) {
  const std::size_t phase = name.find('.'), seq = name.find('.', phase + 1);
  if (phase == std::string::npos || seq == std::string::npos) return name;
  const std::size_t unit = name.find('.', seq + 1);
  if (unit == std::string::npos) return name;
  return name.substr(phase + 1, seq - phase - 1) + "|" + name.substr(unit + 1);
}

double parse_mfu(const std::string& text, const std::string& spec) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const bool percent = used + 1 == text.size() && text.back() == '%';
  if (used == 0 || (used != text.size() && !percent))
    throw UsageError("--compute " + spec + ": MFU '" + text + "' is not a number");
  if (percent) value /= 100;
  if (!(value > 0 && value <= 1)) throw UsageError("--compute " + spec + ": MFU must be in (0, 1]");
  return value;
}

ComputeSource modelled(const std::string& spec) {
  const std::string body = spec.substr(6);
  // Without "@MFU", replay's default, so a projection of a sweep run with --compute model:h100
  // models the same compute.
  const std::size_t at = body.find('@');
  const std::string gpu = body.substr(0, at);
  const auto peak = find_gpu_peak(gpu);
  if (!peak)
    throw UsageError("--compute " + spec + ": unknown GPU '" + gpu + "' (a100, h100, h200, b200)");
  ComputeSource source;
  source.label = spec;
  source.gpu = gpu;
  source.peak_tflops = peak->bf16_dense_tflops;
  source.mfu = at == std::string::npos ? kDefaultModelMfu : parse_mfu(body.substr(at + 1), spec);
  return source;
}

}  // namespace

double ComputeSource::op_ms(const ScheduleOp& op) const {
  if (auto it = measured_ms.find(op.name); it != measured_ms.end()) return it->second;
  if (auto it = measured_by_unit_ms.find(unit_key(op.name)); it != measured_by_unit_ms.end())
    return it->second;
  if (!measured_ms.empty() && !(peak_tflops && mfu > 0))
    throw UsageError("--compute " + label + ": the measured replay has no compute op '" + op.name +
                     "' and no compute-only MFU to time it by; replay this model again");
  // An imported trace's kernels carry their measured time; the peak does not set it.
  double traced_ms = 0;
  for (const KernelSlice& k : op.compute().kernels)
    if (k.kind == KernelKind::timed) traced_ms += k.duration_us / 1e3;
  return gemm_flops(op.compute().gemms) / (*peak_tflops * 1e12 * mfu) * 1e3 + traced_ms;
}

ComputeSource parse_compute(const std::string& spec, const WorkloadRequest& request) {
  if (spec.rfind("model:", 0) == 0) return modelled(spec);
  std::error_code ec;
  if (!std::filesystem::exists(spec, ec))
    throw UsageError("--compute '" + spec + "' is neither model:GPU@MFU nor a results folder");
  for (const ReplayRun& run : load_results(spec).replays) {
    if (run.compute_ms.empty() || run.model != request.model ||
        run.micro_batch != request.micro_batch || run.seq != request.seq)
      continue;
    ComputeSource source;
    source.label = spec;
    source.peak_tflops = run.peak_tflops;
    source.measured_ms = run.compute_ms;
    for (const auto& [name, ms] : run.compute_ms) source.measured_by_unit_ms[unit_key(name)] = ms;
    source.mfu = run.mfu_compute_only.value_or(0);
    return source;
  }
  throw UsageError("--compute " + spec + ": no replay of " + request.model + " at micro-batch " +
                   std::to_string(request.micro_batch) + " x seq " + std::to_string(request.seq) +
                   " with compute times");
}

}  // namespace collreplay::project
