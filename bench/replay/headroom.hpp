// Overlap headroom: the pure arithmetic that turns the executor's three passes into the numbers
// replay reports. No MPI, no timing: inputs are times already reduced across steps and ranks, so
// every definition here is unit-tested and printed verbatim by `replay --help` (headroom_help()).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/schedule.hpp"

namespace collreplay {

// One time per schedule op (index = op index), in ms; ops a pass does not run hold 0.
struct OpTimes {
  std::vector<double> compute_only_ms;  // compute ops, compute-only pass
  std::vector<double> comm_only_ms;     // comm ops, comm-only pass
  std::vector<double> overlapped_ms;    // every op, overlapped pass (excludes waiting on deps)
};

// Whole-step times of the three passes, in ms.
struct PassStepTimes {
  double compute_only_ms = 0;
  double comm_only_ms = 0;
  double overlapped_ms = 0;
};

struct RateInputs {
  std::uint64_t tokens_per_step = 0;  // tokens one rank processes per step
  int world = 1;
  double flops_per_step = 0;          // hardware FLOPs of one rank's step: every GEMM, recompute
                                      // included (unscaled shapes)
  double model_flops_per_step = 0;    // model FLOPs (model_flops): 3 x the forward GEMMs
  std::optional<double> peak_tflops;  // per rank; absent: no MFU
};

// Headroom of one compute op: the window it opens and the communication meant to hide in it.
struct OpHeadroom {
  int op = -1;
  double compute_ms = 0;
  double comm_ms = 0;      // sum of comm-only times of comm ops with hides_behind == op
  double headroom_ms = 0;  // compute_ms - comm_ms
  std::optional<double> headroom_ratio;  // headroom_ms / compute_ms; absent when compute_ms == 0
};

// The same summed over the compute ops of one FSDP unit (forward, backward and recompute).
struct UnitHeadroom {
  std::string unit;
  double compute_ms = 0;
  double comm_ms = 0;               // comm hiding behind this unit's compute (any unit's comm)
  double exposed_by_design_ms = 0;  // this unit's comm ops with hides_behind == -1
  double headroom_ms = 0;
  std::optional<double> headroom_ratio;
};

// Communication below this share of the compute-only step is within that step's noise: the
// overlap efficiency of so little is not reported.
inline constexpr double kNegligibleCommShare = 0.05;

struct StepHeadroom {
  double compute_ms = 0;                     // compute-only step
  double comm_ms = 0;                        // comm-only step
  double overlapped_ms = 0;                  // overlapped step
  double exposed_comm_ms = 0;                // overlapped_ms - compute_ms
  double optimizer_ms = 0;                   // the optimizer phase's ops, overlapped pass
  double fwd_bwd_ms = 0;                     // compute-only step without its optimizer phase
  // 1 - exposed_comm_ms / comm_ms; none when comm_ms < kNegligibleCommShare x compute_ms
  std::optional<double> overlap_efficiency;
  std::optional<double> compute_slowdown;    // sum overlapped compute-op times / compute-only
  std::optional<double> tokens_per_s;        // tokens_per_step * world / overlapped step
  std::optional<double> mfu;                 // model_flops_per_step / overlapped step / peak
  std::optional<double> mfu_compute_only;    // the same for the compute-only step
  std::optional<double> hfu;                 // flops_per_step / overlapped step / peak
  std::optional<double> hfu_compute_only;
};

// Model FLOPs of one rank's step, by the standard definition of MFU (PaLM, Megatron): 3 x the
// forward pass's GEMMs (forward 1, backward 2), i.e. 6 x the parameters that multiply
// activations (every Linear, lm_head included, a tied head once; the embedding lookup is no
// matmul) x tokens, plus the attention score and context GEMMs at their causal half. Recompute
// is not counted (that is HFU's numerator, schedule_totals().flops).
double model_flops(const Schedule& schedule);

std::optional<double> safe_ratio(double numerator, double denominator);

std::vector<OpHeadroom> op_headroom(const Schedule& schedule, const OpTimes& times);
// Units in order of first appearance in the schedule.
std::vector<UnitHeadroom> unit_headroom(const Schedule& schedule, const OpTimes& times);
StepHeadroom step_headroom(const Schedule& schedule, const PassStepTimes& steps,
                           const OpTimes& times, const RateInputs& rates);

// Physical sanity of a step: overlapped >= max(compute, comm) and <= compute + comm, each
// within `tolerance` (a fraction). Returns one message per violation, empty when sane. A
// pipeline's rank also waits for the other stages' compute (the bubble): no ceiling then.
std::vector<std::string> step_sanity(const StepHeadroom& step, double tolerance,
                                     bool pipeline = false);

// Compute scale that makes the compute-only step reach `target_mfu`: the step at scale 1 took
// compute_ms_at_scale1, and stretched compute time grows linearly with the scale.
double scale_for_target_mfu(double flops_per_step, double compute_ms_at_scale1, double peak_tflops,
                            double target_mfu);

// The definitions above in words, for --help and the README.
std::string headroom_help();

}  // namespace collreplay
