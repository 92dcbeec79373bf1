// Counters while an executable runs: a Sampler (fabric + GPU, every --monitor-interval), the
// benchmark's gauges, and their Prometheus exposition over HTTP (--metrics-port, each rank on
// port + its local rank) and/or in a file for node_exporter's textfile collector
// (--metrics-file, rewritten atomically after every sample; `%r` in the name becomes the rank).
//
//   MonitorOptions options; add_monitor_options(app, options);           // at parse time
//   MonitorSession monitor(options, host, rank, local_rank, gpu_build);   // before measuring
//   monitor.board().set("collreplay_busbw_gbps", "...", {{"op", "all_gather"}}, 12.3);
//   for (auto& r : monitor.finish()) results.add(r);                     // after measuring
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/app/run/cli_names.hpp"
#include "bench/monitor/metrics_board.hpp"
#include "bench/monitor/sampler.hpp"

namespace collreplay {

class MetricsServer;

struct MonitorOptions {
  double interval_s = 0;  // 0: no sampling (off unless asked: result files hold measurements only)
  std::string sysfs_root = "/sys";
  int metrics_port = 0;  // 0: no HTTP endpoint
  std::string metrics_address = "127.0.0.1";
  std::string metrics_file;
};

void add_monitor_options(CLI::App& app, MonitorOptions& options);

// UsageError for values no run can use (a negative or too short interval, a port outside
// 0..65535); pure, so that --dry-run refuses them as a run does, and every rank alike.
void check_monitor_options(const MonitorOptions& options);

class MonitorSession {
 public:
  // Checks the options (UsageError: interval below 0.1 s, a sysfs root without class/net, a busy
  // port, an unwritable metrics file) and starts sampling and serving.
  MonitorSession(const MonitorOptions& options, const std::string& host, int rank, int local_rank,
                 bool sample_gpus);
  ~MonitorSession();
  MonitorSession(const MonitorSession&) = delete;
  MonitorSession& operator=(const MonitorSession&) = delete;

  MetricsBoard& board() { return board_; }
  bool sampling() const { return sampler_ != nullptr; }
  // Cumulative fabric counters now (empty when not sampling): per-op byte deltas.
  CounterSnapshot fabric_now() const;
  // Stops sampling and returns the `record: "counters"` time series (plus one
  // `record: "counter_problems"` line when some counter could not be read).
  std::vector<nlohmann::json> finish();

 private:
  std::string exposition() const;
  void write_metrics_file() const;

  MonitorOptions options_;
  std::string host_;
  int rank_ = 0;
  std::string metrics_file_;
  MetricsBoard board_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<MetricsServer> server_;
};

}  // namespace collreplay
