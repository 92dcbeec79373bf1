// The benchmark's own gauges (message size, busbw, step time, headroom) as the running benchmark
// last set them, for the Prometheus exposition. Set from the benchmark thread, read from the
// server thread: every access takes the board's mutex, and setting a gauge costs one map update
// outside any timed region.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace collreplay {

struct Gauge {
  std::string name;                           // "collreplay_busbw_gbps"
  std::string help;                           // one line for # HELP
  std::map<std::string, std::string> labels;  // {"op": "all_gather"}
  double value = 0;
};

class MetricsBoard {
 public:
  // Sets (or adds) the gauge identified by name + labels.
  void set(const std::string& name, const std::string& help,
           const std::map<std::string, std::string>& labels, double value);
  std::vector<Gauge> gauges() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::map<std::string, std::string>>, Gauge> gauges_;
};

}  // namespace collreplay
