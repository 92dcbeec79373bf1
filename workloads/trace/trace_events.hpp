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

// An NCCL kernel's collective fields, as torch records them (record_shapes).
struct TraceCollective {
  std::string name;  // "Collective name": _allgather_base, _reduce_scatter_base, allreduce, ...
  std::int64_t in_nelems = 0, out_nelems = 0;
  std::string dtype;       // "BFloat16", "Float", ...
  std::vector<int> ranks;  // the process group's ranks
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
};

struct HostSpan {
  double start_us = 0, end_us = 0;
};

struct TraceEvents {
  std::string path;
  int rank = 0, world = 1;  // distributedInfo (rank 0 of 1 without one)
  std::string device;       // deviceProperties[0].name, "" when absent
  double step_start_us = 0;  // ProfilerStep#N's start, or the first host event's
  std::vector<GpuWork> gpu;  // in launch order
  std::vector<HostSpan> host_waits;  // host calls that block on the GPU (synchronize, cudaMemcpy)
  std::vector<HostSpan> optimizer;   // "Optimizer.step#..." annotations
};

inline constexpr std::size_t kLabelChars = 64;  // sweeps/gpu/reference/trim_trace.py: LABEL_CHARS

// "void at::native::vectorized_elementwise_kernel<4, ...>(...)" -> "at::native::vectorized_elementwise_kernel".
std::string kernel_label(const std::string& name);

// Parses `text` (the contents of `path`). The first profiler step when the trace has several.
// UsageError naming the file and what is missing: not JSON, no traceEvents, no GPU work, GPU work
// without its launch, an NCCL kernel without its collective fields.
TraceEvents parse_trace(const std::string& text, const std::string& path);
TraceEvents read_trace(const std::string& path);

}  // namespace collreplay::trace
