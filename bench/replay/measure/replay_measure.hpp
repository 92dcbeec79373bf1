// The measure and report steps of a replay (run_replay, replay_run.hpp), each to be read alone:
// measure_replay runs the passes and gathers them across ranks; report_replay turns rank 0's
// gathered passes into headroom, the table, the metrics and the records.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/app/progress.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/executor/executor.hpp"
#include "bench/monitor/host_monitor.hpp"
#include "bench/replay/cli/replay_options.hpp"
#include "bench/replay/flops/peak.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "bench/replay/replay_report.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay {

// With dilation D everything emulated ran D times slower: report undilated times.
PassResult undilated(PassResult result, double dilation);

// Steps each pass is expected to run: --steps, else half the until-stable cap (at least 5).
int expected_pass_steps(const ReplayOptions& options);

// What the measure step reads besides the executor.
struct MeasureInputs {
  const ReplayOptions& options;
  double dilation = 1;
  std::optional<double> peak_tflops;
  double model_flops_per_step = 0;
  AgreeMax slowest_rank;  // the slowest rank's value, naming a rank that did not finish a step
  int rank = 0;
};

struct Measured {
  ReplayMeasurements m;    // the passes (gathered on rank 0), -G's graph time, the buffers' bytes
  PassResult overlapped;   // this rank's overlapped pass, for --trace-out
};

// Collective: -c's data check, the warm-up, --target-mfu's calibration, the three passes
// (compute only, comm only, overlapped) each summarized across ranks, -G's graph launches, and
// the largest buffers over ranks.
Measured measure_replay(Executor& executor, const Progress& progress, const MeasureInputs& in);

// What the report step reads besides the measurements: the run as it was set up.
struct ReportInputs {
  const StepFlops& flops;
  const Peak& peak;
  const RunMetadata& meta;
  std::string engine;
  std::vector<int> group_sizes;              // by GroupKind
  const WorkloadRequest* built_from = nullptr;  // the request a built schedule came from (its
                                                // optimizer); none for a loaded one or a trace
};

// Rank 0: headroom per op, unit and step from the passes, then the stdout table and the metrics
// board (when a monitor runs); returns the records to write, `run` attached to each.
std::vector<nlohmann::json> report_replay(ReplayMeasurements& m, const ReportInputs& in,
                                          MonitorSession* monitor, const nlohmann::json& run);

}  // namespace collreplay
