// Timing one case of the perf harness: the warm-up, the timed ops sampled by a SamplingPlan
// (sampling_plan.hpp), and CUDA-graph launches (-G). Every function is collective: all ranks
// call it with the same arguments and issue the same ops.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bench/perf/perf_context.hpp"
#include "bench/perf/timing/sampling_plan.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {

// Per-op times of one case, as samples, and how many ops they cover.
struct TimedOps {
  std::vector<double> samples_us;  // each the mean per-op time of the ops it covers, combined
                                   // across ranks (--report)
  std::size_t ops = 0;
  int ops_per_sample = 1;
  double cpu_us = 0;  // the host's time issuing one op (nccl-tests' -C), combined across ranks
};

struct WarmUp {
  int ops = 0;
  double op_us = 0;  // --stable: the op's time, the largest over the ranks; else 0
};

// -w ops; under --stable sized to need (sampling_plan.hpp) and timed.
WarmUp warm_up(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label);

// The timed ops of one case, sampled and stopped as `plan` says. Each planned op is -m ops in one
// group; -z 1..3 wait for each op (and barrier) as nccl-tests' blocking modes do.
TimedOps time_ops(PerfContext& ctx, const OpLayout& layout, Placement p, const std::string& label,
                  const SamplingPlan& plan);

// -G: records -n ops into a CUDA graph after one plain op (which sizes any staging buffer) and
// launches it once, so that the timed launches find it uploaded and warm.
std::unique_ptr<CapturedWork> capture_case(PerfContext& ctx, const OpLayout& layout, Placement p,
                                           const std::string& label);

// -G: N launches of the graph, each launch one sample (its time over -n), as nccl-tests times
// its graph mode.
TimedOps time_graph_launches(PerfContext& ctx, CapturedWork& graph, const std::string& label);

}  // namespace collreplay
