#include "bench/replay/flops/step_flops.hpp"

#include <cstdio>

#include "bench/replay/headroom.hpp"
#include "workloads/schedule_summary.hpp"
#include "workloads/trace/trace_import.hpp"

namespace collreplay {

StepFlops schedule_step_flops(const Schedule& schedule) {
  return {model_flops(schedule), schedule_totals(schedule).flops};
}

StepFlops traced_step_flops(const std::optional<double>& compute_flops) {
  return {compute_flops, compute_flops};
}

ScheduleWithFlops with_flops(Schedule schedule) {
  const StepFlops flops = schedule_step_flops(schedule);
  return {std::move(schedule), flops};
}

ScheduleWithFlops schedule_with_flops(const WorkloadRequest& request) {
  if (request.trace.empty()) return with_flops(schedule_for_request(request));
  trace::TraceImport in = trace::import_trace(request);
  return {std::move(in.schedule), traced_step_flops(in.compute_flops)};
}

StepFlops mean_step_flops(const std::vector<StepFlops>& ranks) {
  const auto mean = [&](std::optional<double> StepFlops::*figure) -> std::optional<double> {
    double sum = 0;
    for (const StepFlops& r : ranks) {
      if (!(r.*figure)) return std::nullopt;
      sum += *(r.*figure);
    }
    if (ranks.empty()) return std::nullopt;
    return sum / static_cast<double>(ranks.size());
  };
  return {mean(&StepFlops::model), mean(&StepFlops::hardware)};
}

std::optional<double> tflops_per_s(const std::optional<double>& flops, double step_ms) {
  if (!flops || !(*flops > 0) || !(step_ms > 0)) return std::nullopt;
  return *flops / (step_ms * 1e9);
}

std::optional<double> flops_utilization(const std::optional<double>& flops, double step_ms,
                                        const std::optional<double>& peak_tflops) {
  const std::optional<double> achieved = tflops_per_s(flops, step_ms);
  if (!achieved || !peak_tflops || !(*peak_tflops > 0)) return std::nullopt;
  return *achieved / *peak_tflops;
}

std::string figure_text(const std::optional<double>& value, const char* format, double factor) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, *value * factor);
  return text;
}

}  // namespace collreplay
