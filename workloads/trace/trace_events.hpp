// Reads a torch.profiler Chrome trace (export_chrome_trace) into what the importer needs: every
// piece of GPU work of one step with the host call that launched it, the host calls that waited
// for the GPU, the phase marks, and the job's rank, world and process groups. Nothing here knows
// about a Schedule (trace_schedule.hpp builds one). Standard library + nlohmann-json.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace collreplay::trace {

// An NCCL call's fields, as torch records them on its kernel and its record_param_comms event
// (torch/csrc/profiler/util.cpp saveNcclMeta, torch 2.4 to 2.11; read/comm_fields.hpp).
struct TraceCollective {
  std::string name;  // "Collective name": _allgather_base, allreduce, barrier, send, ...
  std::int64_t in_nelems = 0, out_nelems = 0;
  std::string dtype;       // "BFloat16", "Float", ...
  std::vector<int> ranks;  // the process group's global ranks, in group order
  // all_to_all_single: rows sent to / received from each group rank ("In/Out split size");
  // empty when even.
  std::vector<std::int64_t> in_splits, out_splits;
  // "Rank": the caller's group rank; for a broadcast the root's, for a send or recv the peer's.
  int rank_field = -1;
  int peer = -1;  // send: "Dst Rank", recv: "Src Rank" (global); -1 when absent
};

// One kernel, memcpy or memset on the GPU, with the host call that launched it.
struct GpuWork {
  std::string label;  // the kernel's name up to its argument list (kLabelChars at most)
  double start_us = 0, dur_us = 0;  // on the GPU
  std::int64_t stream = 0;
  double launch_us = 0;          // when the host call that launched it started
  double launch_end_us = 0;      // ... and returned
  std::int64_t launch_tid = 0;   // the host thread (autograd runs backward on its own)
  std::int64_t correlation = 0;  // ties the two; orders launches made at the same instant
  std::optional<TraceCollective> collective;
  // A coalesced launch (batch_isend_irecv, *_coalesced): the calls it holds, from the
  // record_param_comms events its thread recorded since its previous NCCL launch; empty otherwise.
  std::vector<TraceCollective> parts;
};

// A host op with its input shapes (record_shapes), of the kinds read/op_flops.hpp counts.
struct ShapedOp {
  std::string name;  // "aten::mm"
  double start_us = 0, end_us = 0;
  std::int64_t tid = 0;
  std::vector<std::vector<std::int64_t>> dims;  // "Input Dims"; [] for a scalar or None
  std::vector<std::string> concrete;            // "Concrete Inputs" ("True", "0.0", ""), if any
};

struct HostSpan {
  double start_us = 0, end_us = 0;
};

struct TraceEvents {
  std::string path;
  int rank = 0, world = 1;  // distributedInfo (rank 0 of 1 without one)
  std::string device;       // deviceProperties[0].name, "" when absent
  double step_start_us = 0;  // ProfilerStep#N's start, or the first host event's
  int step = -1;             // N of the ProfilerStep#N read; -1: no ProfilerStep, the whole trace
  std::vector<int> steps;    // every ProfilerStep#N of the trace, by start
  std::vector<GpuWork> gpu;  // in launch order
  std::vector<HostSpan> host_waits;  // host calls that block on the GPU (synchronize, cudaMemcpy)
  // Launches that returned late (over launch_stall_us): the GPU's launch queue was full, the GPU
  // far behind the host (a stage waiting on a recv while its host queues the backward). Time
  // the host waited, not its own; not a sync either: the host went on as soon as there was room.
  std::vector<HostSpan> launch_stalls;
  // This trace's cut between an ordinary host call and one that waited on the GPU
  // (launch_stall_cut_us of its launch calls): a launch over it stalled; a synchronize or
  // cudaMemcpyAsync no longer than it only queued (trace_schedule.cpp).
  double launch_stall_us = 0;
  std::vector<HostSpan> optimizer;   // "Optimizer.step#..." annotations
  bool has_shapes = false;           // some host op carries "Input Dims" (record_shapes)
  std::vector<ShapedOp> shaped_ops;  // the step's GEMM and attention ops with their shapes
};

// A host call that launches GPU work returns in a time set by the host (its CPU, its load, the
// profiler), so the cut between an ordinary launch and one that waited on a full launch queue is
// a multiple of the trace's own median launch, not a fixed time. Measured on the 17 committed
// fixtures (sweeps/gpu/traces/launch_gaps.py; bench/RESULTS.md, "Launch stalls and GPU gaps"):
// median launches of 6.3-12.4 us; ordinary launches reach 12.3x their trace's median (q05_small
// rank 1: 142 us); the pipeline's second stage, whose host queues the backward while its GPU waits
// on a recv, has launches at 10.5-16x (107-164 us), then none until 35x (361 us) and up; the
// shortest stall elsewhere is 41x (hsdp rank 2: 332 us). 20x lies in the empty span 16-35x. The
// former fixed 50 us cut took ordinary launches of 50-78 us, present in 13 of the 17, for stalls.
inline constexpr double kLaunchStallMedians = 20;
inline constexpr std::size_t kLabelChars = 64;  // sweeps/gpu/reference/trim_trace.py: LABEL_CHARS

// kLaunchStallMedians x the median of `launch_durs_us` (the trace's launch calls); 0 when there
// are none: nothing to measure an ordinary call by, so every wait for the GPU counts.
double launch_stall_cut_us(std::vector<double> launch_durs_us);

// "void at::native::vectorized_elementwise_kernel<4, ...>(...)" -> "at::native::vectorized_elementwise_kernel".
std::string kernel_label(const std::string& name);

// Parses `text` (the contents of `path`): ProfilerStep#`step`, or with step < 0 the step of median
// duration (the lower of two), or the whole trace when it has no ProfilerStep. UsageError naming
// the file and what is missing: not JSON, no traceEvents, no such step, no GPU work, GPU work
// without its launch, an NCCL kernel without its collective fields.
TraceEvents parse_trace(const std::string& text, const std::string& path, int step = -1);
// N of the ProfilerStep#N of median duration in `text`, -1 when it has none: what parse_trace
// reads by default. Ranks of a job with one trace each take rank 0's, so all replay one step.
int median_step(const std::string& text, const std::string& path);
// The file (plain or gzip'd JSON, read/trace_file.hpp).
TraceEvents read_trace(const std::string& path, int step = -1);

}  // namespace collreplay::trace
