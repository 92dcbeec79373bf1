// What the perf harness's benchmark cases share: each measured case, and the context that lives
// for the whole run (buffers, measurements, progress, monitor, results).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/app/progress.hpp"
#include "bench/app/results.hpp"
#include "bench/app/run/line_rate.hpp"
#include "bench/app/run/run_metadata.hpp"
#include "bench/monitor/host_monitor.hpp"
#include "bench/perf/cli/perf_cli.hpp"
#include "bench/perf/timing/perf_samples.hpp"
#include "collectives/communicator.hpp"
#include "collectives/ops/op_spec.hpp"

namespace collreplay {

struct Measurement {
  std::uint64_t bytes;
  std::size_t count;
  Placement placement;
  SampleSummary times_us;  // per-op times, combined across ranks sample by sample
  std::vector<double> samples_us;  // those samples themselves: what `compare` tests BASE vs NEW on
  std::size_t ops_timed;   // the ops the samples cover (more than samples under -G, -m or -I 0)
  double cpu_us;           // the host's time issuing one op (-C), combined across ranks
  int ops_per_sample;      // each sample is the mean of this many back-to-back ops
  int warmup_ops;          // issued before timing (under --stable sized to need)
  double bus_bytes;        // the bytes busbw counts (OpSpec::bus_bytes)
  std::uint64_t wrong;
  int repetition;
  // What this host's NICs and InfiniBand ports moved while the size was timed (rank 0's host),
  // when the monitor samples: the fabric's view of the same bytes.
  std::optional<FabricBytes> fabric;
  // Against the emulated profile's links: whether this busbw is one such a cluster can produce.
  std::optional<LineRateVerdict> line_rate;
};

// Everything the benchmark cases share; lives for the duration of the run.
struct PerfContext {
  PerfContext(const OpSpec& o, const PerfOptions& opts, Communicator& c)
      : op(o), options(opts), comm(c) {}
  const OpSpec& op;
  const PerfOptions& options;
  Communicator& comm;
  void* buffer_a = nullptr;            // send (out-of-place) or the single buffer (in-place)
  void* buffer_b = nullptr;            // recv (out-of-place)
  std::vector<unsigned char> staging;  // host copy of a buffer, for device buffers only
  std::vector<Measurement> measurements;
  std::map<std::string, int> repetitions_seen;
  const Progress* progress = nullptr;
  MonitorSession* monitor = nullptr;  // this host's, on the host's first rank only
  ResultsFile* results = nullptr;     // each size's record is added as soon as it is measured
  RunMetadata* meta = nullptr;
  double dilation = 1;                  // RunSetup::dilation: measured times are divided by it
  std::optional<NodeLinks> node_links;  // an emulated profile's: each size's line-rate verdict
  double work_done = 0;  // in case_work() units
  int cases = 0;
};

}  // namespace collreplay
