#include "bench/monitor/monitor_session.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/monitor/metrics_server.hpp"
#include "bench/monitor/prometheus_text.hpp"
#include "common/atomic_file.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

namespace fs = std::filesystem;

std::string with_rank(std::string path, int rank) {
  const auto at = path.find("%r");
  if (at != std::string::npos) path.replace(at, 2, std::to_string(rank));
  return path;
}

}  // namespace

void add_monitor_options(CLI::App& app, MonitorOptions& options) {
  app.add_option("--monitor-interval", options.interval_s,
                 "seconds between counter samples (NIC, InfiniBand, GPU), e.g. 1; 0 = off "
                 "(default), minimum 0.1")
      ->capture_default_str();
  app.add_option("--sysfs-root", options.sysfs_root, "where class/net and class/infiniband live")
      ->capture_default_str();
  app.add_option("--metrics-port", options.metrics_port,
                 "serve Prometheus /metrics on this port (+ local rank) during the run");
  app.add_option("--metrics-address", options.metrics_address, "address the endpoint binds")
      ->capture_default_str();
  app.add_option("--metrics-file", options.metrics_file,
                 "write the Prometheus text to this file after every sample (%r = rank)");
}

void check_monitor_options(const MonitorOptions& options) {
  if (options.interval_s != 0 && !(options.interval_s >= 0.1))
    throw UsageError("--monitor-interval must be 0 (off) or at least 0.1 seconds, not " +
                     (std::ostringstream{} << options.interval_s).str());
  if (options.metrics_port < 0 || options.metrics_port > 65535)
    throw UsageError("--metrics-port must be 0 (off) or a port up to 65535, not " +
                     std::to_string(options.metrics_port));
}

MonitorSession::MonitorSession(const MonitorOptions& options, const std::string& host, int rank,
                               int local_rank, bool sample_gpus)
    : options_(options), host_(host), rank_(rank) {
  check_monitor_options(options);
  if (options.interval_s > 0 && !fs::is_directory(fs::path(options.sysfs_root) / "class/net"))
    throw UsageError("--sysfs-root " + options.sysfs_root +
                     " has no readable class/net folder (is it a sysfs tree?)");
  if (!options.metrics_file.empty()) {
    metrics_file_ = with_rank(options.metrics_file, rank);
    const fs::path dir = fs::absolute(metrics_file_).parent_path();
    if (!fs::is_directory(dir) || ::access(dir.c_str(), W_OK) != 0)
      throw UsageError("--metrics-file " + metrics_file_ + ": folder " + dir.string() +
                       " does not exist or is not writable");
  }
  if (options.metrics_port != 0)
    server_ =
        std::make_unique<MetricsServer>(options.metrics_address, options.metrics_port + local_rank,
                                        [this] { return exposition(); });
  if (options.interval_s > 0) {
    SamplerSettings settings;
    settings.interval_s = options.interval_s;
    settings.sysfs_root = options.sysfs_root;
    settings.gpu = sample_gpus;
    settings.host = host;
    settings.rank = rank;
    if (!metrics_file_.empty()) settings.after_sample = [this] { write_metrics_file(); };
    sampler_ = std::make_unique<Sampler>(settings);
  }
  if (!metrics_file_.empty()) write_metrics_file();
}

MonitorSession::~MonitorSession() {
  server_.reset();
  sampler_.reset();
}

CounterSnapshot MonitorSession::fabric_now() const {
  return sampler_ ? sampler_->read_now() : CounterSnapshot{};
}

std::string MonitorSession::exposition() const {
  ExpositionInput input;
  input.host = host_;
  input.rank = rank_;
  if (sampler_) {
    input.fabric = sampler_->latest();
    input.gpus = sampler_->latest_gpu();
    const std::vector<nlohmann::json> records = sampler_->records();
    // The newest rate of each fabric device.
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
      if (it->value("source", "") == "gpu") continue;
      bool seen = false;
      for (const nlohmann::json& r : input.fabric_rates) seen |= r["device"] == (*it)["device"];
      if (!seen) input.fabric_rates.push_back(*it);
    }
  }
  input.gauges = board_.gauges();
  return prometheus_text(input);
}

void MonitorSession::write_metrics_file() const {
  try {
    // node_exporter reads whatever is in its folder: a half-written file would be a broken scrape.
    AtomicFile file(metrics_file_, AtomicFile::OnFailure::remove);
    file.append(exposition());
    file.commit();
  } catch (const RuntimeError& e) {
    // On the sampler's thread: a full disk must not kill the benchmark. Reported at the end.
    std::fprintf(stderr, "collreplay: warning: %s\n", e.what());
  }
}

std::vector<nlohmann::json> MonitorSession::finish() {
  std::vector<nlohmann::json> records;
  if (!sampler_) return records;
  sampler_->stop();
  records = sampler_->records();
  if (const auto problems = sampler_->problems(); !problems.empty())
    records.push_back(
        {{"record", "counter_problems"}, {"host", host_}, {"rank", rank_}, {"problems", problems}});
  if (!metrics_file_.empty()) write_metrics_file();
  return records;
}

}  // namespace collreplay
