// Where projected compute times come from: a GPU's bf16 peak at a given MFU
// (`model:h100@0.45`; an imported trace's timed kernels keep their traced time), or a measured
// replay's compute-only pass (a results folder), matched to the
// schedule's compute ops by name. Per-rank compute does not change with node count (FSDP keeps
// each rank's tokens), so one measurement serves every projected world size.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

struct ComputeSource {
  std::string label;                          // what --compute said
  std::string gpu;                            // the modelled GPU ("h200"); empty when measured
  std::optional<double> peak_tflops;          // per GPU: sets MFU
  double mfu = 0;  // modelled: achieved fraction of the peak; measured: its compute-only MFU
  std::map<std::string, double> measured_ms;  // measured: compute op name -> ms
  // Measured: "fwd|layers.3" (phase and the unit after the op's sequence number) -> ms, for a
  // schedule whose ops are numbered otherwise than the measured run's (an older replay).
  std::map<std::string, double> measured_by_unit_ms;

  // Time of one compute op. Measured: by name, else by phase and unit, else its GEMMs at the
  // measured run's compute-only MFU; UsageError when the run has no MFU to fall back on.
  double op_ms(const ScheduleOp& op) const;
};

// `model:GPU@MFU` (MFU as 0.45 or 45%) or a results folder holding a replay of request's model,
// micro-batch and sequence length. UsageError with one line otherwise.
ComputeSource parse_compute(const std::string& spec, const WorkloadRequest& request);

}  // namespace collreplay::project
