// A traced step as a Schedule (the one seam): every collective with its kind, size, dtype and
// group in the order the host issued them (a coalesced launch: each call it holds); the GPU work between them as compute ops whose kernels
// are timed slices of the traced GPU duration (KernelKind::timed), with the host time the job
// spent issuing them; and the waits between the two, as the trace shows them:
//   - a collective waits for the compute issued before it (FSDP records its copy-in and
//     reduce-scatter input on the compute stream before the collective's stream takes them);
//   - compute waits for a collective when its kernel started on the GPU within kWaitGapUs of
//     the collective's end after its stream had stood idle: the stream was held by that event.
//     A new compute op starts there, depending on the collective;
//   - a collective waits for another the same way (HSDP's all-reduce on its own stream after the
//     reduce-scatter it reduces further).
// Host time of a compute op: the host's wall time from the previous op's launch to its own last
// launch, less the time the host spent blocked on the GPU (synchronize, cudaMemcpy, a launch
// held up by a full launch queue).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "workloads/schedule.hpp"
#include "workloads/trace/trace_events.hpp"

namespace collreplay::trace {

// A GPU gap, not a host call: how soon after a collective's kernel ends a kernel held by it
// starts on another stream. Measured on the committed fixtures (sweeps/gpu/traces/launch_gaps.py,
// bench/RESULTS.md "Launch stalls and GPU gaps"): compute kernels queued on an idle stream start
// 1.0-12.4 us after the collective that released them (the event's latency), or 36-45 us after
// an all-gather whose copy-out ran first on its own stream (FSDP2); the next gaps are 64 us and
// more. The cut clears the first two groups. Host calls have their own rule (kLaunchStallMedians).
inline constexpr double kWaitGapUs = 50;

struct TraceImport {
  Schedule schedule;
  std::vector<double> traced_us;  // per op: the GPU time the trace shows (collective: its kernel)
  std::string device;             // the GPU the trace was taken on
  int step = -1;                  // the ProfilerStep#N imported; -1: the whole trace (none)
  // First host event (or ProfilerStep) to the last GPU work's end, less queued_us.
  double step_us = 0;
  // How long the step stood waiting for work launched before it (the previous step's tail): the
  // host blocked on the GPU before the step's first launch, then that first work queued, as far
  // as the GPU stayed behind: a step whose host time is the longer (each compute launch after
  // the host's own time up to it, then the rest of its stream's work) is that long.
  double queued_us = 0;
  double compute_us = 0;          // GPU time of all compute
  double collective_us = 0;       // GPU time of all collective kernels
  double host_us = 0;             // the compute ops' host time
  // FLOPs of the traced compute ops, counted from their input shapes (record_shapes): GEMMs and
  // attention, forward and backward. nullopt: the trace has no shapes, so the figure is unknown.
  std::optional<double> compute_flops;
};

// `host_time` false: compute ops carry no host time (a host that never holds the GPU back).
TraceImport trace_to_schedule(const TraceEvents& trace, bool host_time);

}  // namespace collreplay::trace
