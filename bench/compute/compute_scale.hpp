// Calibration stretch shared by the compute engines: `scale` X runs a compute op's GEMMs
// floor(X) times in full, then once more with M scaled by the remainder, so the work (and the
// time, at steady GEMM efficiency) grows linearly with X while no operand outgrows the shape
// the engine reserved for. Pure.
#pragma once
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

// The GEMMs to run for `op` at `scale` (>= 0; UsageError otherwise). Remainder GEMMs whose
// scaled M rounds to 0 are dropped.
std::vector<GemmShape> stretch_gemms(const ComputeOp& op, double scale);

}  // namespace collreplay
