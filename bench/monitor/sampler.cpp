#include "bench/monitor/sampler.hpp"

#include <algorithm>
#include <chrono>

#include "bench/preflight/gpu_health.hpp"

namespace collreplay {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double rate(std::uint64_t now, std::uint64_t before, double dt_s) {
  // A counter that went backwards was reset (driver reload, 32-bit wrap): no rate this time.
  return now >= before && dt_s > 0 ? static_cast<double>(now - before) / dt_s : 0.0;
}

}  // namespace

Sampler::Sampler(SamplerSettings settings) : settings_(std::move(settings)), start_s_(now_s()) {
  sample();  // the baseline every rate is measured from
  thread_ = std::thread([this] { loop(); });
}

Sampler::~Sampler() { stop(); }

void Sampler::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  sample();
}

void Sampler::loop() {
  const auto interval = std::chrono::duration<double>(settings_.interval_s);
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    sample();
    if (settings_.after_sample) settings_.after_sample();
    lock.lock();
  }
}

CounterSnapshot Sampler::read_now() const {
  CounterSnapshot s = read_fabric_counters(settings_.sysfs_root);
  s.t_s = now_s() - start_s_;
  return s;
}

void Sampler::sample() {
  CounterSnapshot current = read_now();
  std::vector<nlohmann::json> gpu_records;
  if (settings_.gpu) {
    const GpuHealthReport health = read_gpu_health();
    for (const GpuHealth& g : health.gpus)
      gpu_records.push_back({{"record", "counters"},
                             {"t_s", current.t_s},
                             {"host", settings_.host},
                             {"rank", settings_.rank},
                             {"source", "gpu"},
                             {"device", "GPU " + std::to_string(g.index)},
                             {"util_pct", g.util_pct},
                             {"sm_clock_mhz", g.sm_clock_mhz},
                             {"temp_c", g.temperature_c},
                             {"power_w", g.power_w},
                             {"throttle_reasons", g.throttle_reasons}});
  }
  std::lock_guard lock(mutex_);
  if (have_previous_)
    for (const DeviceCounters& before : previous_.devices)
      if (std::none_of(current.devices.begin(), current.devices.end(),
                       [&](const DeviceCounters& d) { return d.device == before.device; }))
        current.problems.push_back(before.source + " device " + before.device +
                                   " disappeared during the run");
  for (const std::string& p : current.problems)
    if (std::find(problems_.begin(), problems_.end(), p) == problems_.end()) problems_.push_back(p);
  if (have_previous_) {
    const double dt_s = current.t_s - previous_.t_s;
    for (const DeviceCounters& d : current.devices) {
      const auto before =
          std::find_if(previous_.devices.begin(), previous_.devices.end(),
                       [&](const DeviceCounters& p) { return p.device == d.device; });
      if (before == previous_.devices.end()) continue;
      records_.push_back({{"record", "counters"},
                          {"t_s", current.t_s},
                          {"host", settings_.host},
                          {"rank", settings_.rank},
                          {"source", d.source},
                          {"device", d.device},
                          {"tx_bytes", d.tx_bytes - std::min(d.tx_bytes, before->tx_bytes)},
                          {"rx_bytes", d.rx_bytes - std::min(d.rx_bytes, before->rx_bytes)},
                          {"tx_bytes_per_s", rate(d.tx_bytes, before->tx_bytes, dt_s)},
                          {"rx_bytes_per_s", rate(d.rx_bytes, before->rx_bytes, dt_s)},
                          {"counters", d.other}});
    }
    for (const nlohmann::json& g : gpu_records) records_.push_back(g);
  }
  latest_gpu_ = std::move(gpu_records);
  previous_ = std::move(current);
  have_previous_ = true;
}

std::vector<nlohmann::json> Sampler::records() const {
  std::lock_guard lock(mutex_);
  return records_;
}

CounterSnapshot Sampler::latest() const {
  std::lock_guard lock(mutex_);
  return previous_;
}

std::vector<nlohmann::json> Sampler::latest_gpu() const {
  std::lock_guard lock(mutex_);
  return latest_gpu_;
}

std::vector<std::string> Sampler::problems() const {
  std::lock_guard lock(mutex_);
  return problems_;
}

}  // namespace collreplay
