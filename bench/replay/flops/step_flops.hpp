// FLOPs of one rank's step, as TFLOP/s and MFU need them, and how an unknown figure prints.
// A schedule built from the catalog knows its GEMMs. An imported trace knows its FLOPs only when
// it was taken with record_shapes (TraceImport::compute_flops, counted from the traced GEMM and
// attention shapes); without shapes they are unknown, and so are TFLOP/s and MFU: "-" in a
// table and null in a record, never 0.0%.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct StepFlops {
  std::optional<double> model;     // MFU's numerator: 3 x the forward GEMMs (headroom.hpp)
  std::optional<double> hardware;  // HFU's: every GEMM run, recompute included
};

StepFlops schedule_step_flops(const Schedule& schedule);
// What the traced ops ran is both: a trace cannot tell a recompute from a forward.
StepFlops traced_step_flops(const std::optional<double>& compute_flops);

struct ScheduleWithFlops {
  Schedule schedule;
  StepFlops flops;
};
// A built or loaded schedule: its GEMMs' FLOPs.
ScheduleWithFlops with_flops(Schedule schedule);
// The schedule `request` names (schedule_for_request) with its step's FLOPs: an imported
// trace's from its shapes, the catalog's from its GEMMs.
ScheduleWithFlops schedule_with_flops(const WorkloadRequest& request);

// Per GPU when ranks' work differs (a pipeline's stages, a trace per rank): the job's FLOPs
// over its GPUs, each rank's own averaged; unknown on any rank, unknown.
StepFlops mean_step_flops(const std::vector<StepFlops>& ranks);

// TFLOP/s of `flops` done in step_ms; nullopt when the FLOPs are unknown or not positive, or
// there is no time.
std::optional<double> tflops_per_s(const std::optional<double>& flops, double step_ms);
// The same as a fraction of the peak (MFU with model FLOPs, HFU with hardware ones).
std::optional<double> flops_utilization(const std::optional<double>& flops, double step_ms,
                                        const std::optional<double>& peak_tflops);

// `value` x factor by the printf `format` ("%.1f%%", "%.1f"), or "-" when unknown.
std::string figure_text(const std::optional<double>& value, const char* format,
                        double factor = 1);

}  // namespace collreplay
