// Samples fabric counters (sysfs) and GPU gauges (NVML) every interval on its own thread, which
// never touches the benchmark's timed path: it only reads files and NVML and appends to its own
// series under its own mutex. Rates are computed from consecutive snapshots.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/monitor/counters.hpp"

namespace collreplay {

struct SamplerSettings {
  double interval_s = 1.0;
  std::string sysfs_root = "/sys";
  bool gpu = true;  // sample NVML too (where the build has it)
  std::string host;
  int rank = 0;
  std::function<void()> after_sample;  // called on the sampler's thread after each sample
};

class Sampler {
 public:
  explicit Sampler(SamplerSettings settings);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Stops the thread after one last sample; idempotent.
  void stop();
  // `record: "counters"` lines so far (one per device per sample after the first).
  std::vector<nlohmann::json> records() const;
  // The newest snapshot, and the problems seen so far (each once).
  CounterSnapshot latest() const;
  std::vector<nlohmann::json> latest_gpu() const;
  std::vector<std::string> problems() const;
  // Reads the fabric counters now (for per-op byte deltas), on the caller's thread.
  CounterSnapshot read_now() const;

 private:
  void loop();
  void sample();

  SamplerSettings settings_;
  double start_s_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  CounterSnapshot previous_;
  bool have_previous_ = false;
  std::vector<nlohmann::json> records_;
  std::vector<nlohmann::json> latest_gpu_;
  std::vector<std::string> problems_;
  std::thread thread_;
};

}  // namespace collreplay
