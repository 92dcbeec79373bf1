#include "bench/replay/headroom.hpp"
#include "workloads/model/gemm_slices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/errors.hpp"

namespace collreplay {
namespace {

double at(const std::vector<double>& times, std::size_t index) {
  return index < times.size() ? times[index] : 0.0;
}

std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100);
  return text;
}

}  // namespace

double model_flops(const Schedule& schedule) {
  double forward = 0;
  for (const ScheduleOp& op : schedule.ops)
    if (!op.is_collective() && op.phase == Phase::forward) forward += gemm_flops(op.compute().gemms);
  return 3.0 * forward;
}

std::optional<double> safe_ratio(double numerator, double denominator) {
  if (denominator == 0 || !std::isfinite(numerator) || !std::isfinite(denominator))
    return std::nullopt;
  return numerator / denominator;
}

std::vector<OpHeadroom> op_headroom(const Schedule& schedule, const OpTimes& times) {
  std::vector<OpHeadroom> result;
  std::map<int, std::size_t> slot_of_op;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    if (schedule.ops[i].is_collective()) continue;
    slot_of_op[static_cast<int>(i)] = result.size();
    result.push_back({static_cast<int>(i), at(times.compute_only_ms, i), 0, 0, std::nullopt});
  }
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    if (!op.is_collective() || op.hides_behind < 0) continue;
    auto slot = slot_of_op.find(op.hides_behind);
    if (slot == slot_of_op.end())
      throw UsageError("schedule op '" + op.name + "' hides behind op " +
                       std::to_string(op.hides_behind) + ", which is not a compute op");
    result[slot->second].comm_ms += at(times.comm_only_ms, i);
  }
  for (OpHeadroom& h : result) {
    h.headroom_ms = h.compute_ms - h.comm_ms;
    h.headroom_ratio = safe_ratio(h.headroom_ms, h.compute_ms);
  }
  return result;
}

std::vector<UnitHeadroom> unit_headroom(const Schedule& schedule, const OpTimes& times) {
  std::vector<UnitHeadroom> units;
  std::map<std::string, std::size_t> slot_of_unit;
  auto slot = [&](const std::string& unit) -> UnitHeadroom& {
    auto [it, inserted] = slot_of_unit.emplace(unit, units.size());
    if (inserted) units.push_back({unit, 0, 0, 0, 0, std::nullopt});
    return units[it->second];
  };
  for (const ScheduleOp& op : schedule.ops) slot(op.unit);  // order of first appearance

  for (const OpHeadroom& h : op_headroom(schedule, times)) {
    UnitHeadroom& unit = slot(schedule.ops[h.op].unit);
    unit.compute_ms += h.compute_ms;
    unit.comm_ms += h.comm_ms;
  }
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    const ScheduleOp& op = schedule.ops[i];
    if (op.is_collective() && op.hides_behind < 0)
      slot(op.unit).exposed_by_design_ms += at(times.comm_only_ms, i);
  }
  for (UnitHeadroom& unit : units) {
    unit.headroom_ms = unit.compute_ms - unit.comm_ms;
    unit.headroom_ratio = safe_ratio(unit.headroom_ms, unit.compute_ms);
  }
  return units;
}

StepHeadroom step_headroom(const Schedule& schedule, const PassStepTimes& steps,
                           const OpTimes& times, const RateInputs& rates) {
  StepHeadroom step;
  step.compute_ms = steps.compute_only_ms;
  step.comm_ms = steps.comm_only_ms;
  step.overlapped_ms = steps.overlapped_ms;
  step.exposed_comm_ms = step.overlapped_ms - step.compute_ms;
  // Communication under kNegligibleCommShare of the compute is within the compute pass's own
  // step-to-step noise: the exposed share of it would be noise over a tiny number (a step with
  // 0.02 ms of comm beside 127 ms of compute read -23 once), so it stays unknown.
  if (step.comm_ms >= kNegligibleCommShare * step.compute_ms)
    if (auto exposed_share = safe_ratio(step.exposed_comm_ms, step.comm_ms))
      step.overlap_efficiency = 1.0 - *exposed_share;

  double compute_alone_ms = 0, compute_overlapped_ms = 0, optimizer_alone_ms = 0;
  for (std::size_t i = 0; i < schedule.ops.size(); ++i) {
    if (schedule.ops[i].is_collective()) continue;
    compute_alone_ms += at(times.compute_only_ms, i);
    compute_overlapped_ms += at(times.overlapped_ms, i);
    if (schedule.ops[i].phase == Phase::optimizer) {
      step.optimizer_ms += at(times.overlapped_ms, i);
      optimizer_alone_ms += at(times.compute_only_ms, i);
    }
  }
  step.fwd_bwd_ms = step.compute_ms - optimizer_alone_ms;
  step.compute_slowdown = safe_ratio(compute_overlapped_ms, compute_alone_ms);

  const double tokens = static_cast<double>(rates.tokens_per_step) * rates.world;
  if (tokens > 0) step.tokens_per_s = safe_ratio(tokens, step.overlapped_ms / 1e3);
  if (rates.peak_tflops && *rates.peak_tflops > 0) {
    const double peak_flops_per_ms = *rates.peak_tflops * 1e9;
    if (rates.model_flops_per_step > 0) {
      step.mfu = safe_ratio(rates.model_flops_per_step, step.overlapped_ms * peak_flops_per_ms);
      step.mfu_compute_only =
          safe_ratio(rates.model_flops_per_step, step.compute_ms * peak_flops_per_ms);
    }
    if (rates.flops_per_step > 0) {
      step.hfu = safe_ratio(rates.flops_per_step, step.overlapped_ms * peak_flops_per_ms);
      step.hfu_compute_only = safe_ratio(rates.flops_per_step, step.compute_ms * peak_flops_per_ms);
    }
  }
  return step;
}

std::vector<std::string> step_sanity(const StepHeadroom& step, double tolerance, bool pipeline) {
  std::vector<std::string> problems;
  const double floor_ms = std::max(step.compute_ms, step.comm_ms);
  const double ceiling_ms = step.compute_ms + step.comm_ms;
  char text[256];
  if (step.overlapped_ms < floor_ms * (1 - tolerance)) {
    std::snprintf(text, sizeof text,
                  "overlapped step %.3f ms is shorter than max(compute %.3f, comm %.3f) ms by "
                  "more than %s",
                  step.overlapped_ms, step.compute_ms, step.comm_ms,
                  percent_text(tolerance).c_str());
    problems.push_back(text);
  }
  if (!pipeline && step.overlapped_ms > ceiling_ms * (1 + tolerance)) {
    std::snprintf(text, sizeof text,
                  "overlapped step %.3f ms is longer than compute + comm = %.3f ms by more than %s",
                  step.overlapped_ms, ceiling_ms, percent_text(tolerance).c_str());
    problems.push_back(text);
  }
  return problems;
}

double scale_for_target_mfu(double flops_per_step, double compute_ms_at_scale1, double peak_tflops,
                            double target_mfu) {
  if (!(target_mfu > 0 && target_mfu <= 1))
    throw UsageError("--target-mfu must be in (0, 1], got " + std::to_string(target_mfu));
  if (!(peak_tflops > 0)) throw UsageError("--target-mfu needs a peak: give --peak-tflops");
  if (!(flops_per_step > 0) || !(compute_ms_at_scale1 > 0))
    throw UsageError("--target-mfu needs a schedule with compute ops");
  const double target_step_ms = flops_per_step / (target_mfu * peak_tflops * 1e9);
  return target_step_ms / compute_ms_at_scale1;
}

std::string headroom_help() {
  return R"(Metrics (every time is the slowest rank's median over the timed steps):
  compute-only pass   only the schedule's compute slices (GEMMs, the kernels between them, the
                      optimizer step), in schedule order on the compute stream, each after the
                      framework's host time to issue it (--host-time).
  comm-only pass      only the collectives, back to back on the comm stream.
  overlapped pass     both streams with the schedule's dependencies (the real step).
  per compute op / per unit (a unit sums its forward, backward and recompute ops):
    compute_ms        the op's time in the compute-only pass.
    comm_ms           sum of the comm-only times of the collectives whose hides_behind is that
                      compute op: the communication that must hide behind it.
    headroom_ms       compute_ms - comm_ms. Negative: the communication cannot hide.
    headroom_ratio    headroom_ms / compute_ms: the share of the compute window left free
                      (1 = no communication, 0 = exactly filled, -0.5 = comm overflows the
                      window by half of it). null when compute_ms is 0.
    exposed_by_design_ms  the unit's collectives with no compute to hide behind (hides_behind -1).
  per step:
    compute_ms, comm_ms, overlapped_ms   the three passes' step times.
    exposed_comm_ms   overlapped_ms - compute_ms: communication the step could not hide.
    optimizer_ms      the optimizer phase (AdamW over the rank's shard, after the last
                      gradient reduction), overlapped pass; part of every step time.
    fwd_bwd_ms        compute_ms without the optimizer phase: forward + backward alone.
    overlap_efficiency  1 - exposed_comm_ms / comm_ms (1 = all hidden, 0 = none hidden); "-"
                      (null) when comm_ms is under 5% of compute_ms, within the noise.
    compute_slowdown  sum of compute-op times in the overlapped pass / the same in the
                      compute-only pass (>1: compute slowed by contention with communication).
    tokens_per_s      tokens_per_step x world / overlapped step.
    mfu               model FLOPs per rank / overlapped step / peak (--peak-tflops; on host a
                      measured sgemm peak unless given): 3 x the forward GEMMs, i.e. 6 x the
                      parameters that multiply activations (every Linear, lm_head included, a
                      tied head once; not the embedding lookup) x tokens, plus the attention
                      score and context GEMMs at their causal half (2 s^2/2 d per head and
                      sequence, each). No recompute. mfu_compute_only: the same, compute-only.
    hfu               hardware FLOPs per rank: every GEMM replayed, recompute included (2mnk,
                      unscaled shapes), over the same; hfu_compute_only likewise. With
                      activation checkpointing HFU >= MFU.
    sanity            overlapped must lie in [max(compute, comm), compute + comm] (5% tolerance;
                      a pipeline's has no ceiling: its stages wait for each other's compute).
  straggler view: every rank's median step time per pass; max, median, min and the slowest
                  rank with its host and device.
What-ifs: --compute-scale X stretches every compute slice X times (GEMMs: floor(X) full runs
  plus one run with M scaled by the remainder; kernels: X times their bytes). --target-mfu F
  picks X so the compute-only step runs at MFU F (model FLOPs). Neither is needed for fidelity:
  the slices are the real step's work (bench/RESULTS.md holds them against a PyTorch step).)";
}

}  // namespace collreplay
