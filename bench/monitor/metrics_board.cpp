#include "bench/monitor/metrics_board.hpp"

namespace collreplay {

void MetricsBoard::set(const std::string& name, const std::string& help,
                       const std::map<std::string, std::string>& labels, double value) {
  std::lock_guard lock(mutex_);
  gauges_[{name, labels}] = Gauge{name, help, labels, value};
}

std::vector<Gauge> MetricsBoard::gauges() const {
  std::lock_guard lock(mutex_);
  std::vector<Gauge> out;
  for (const auto& [key, gauge] : gauges_) out.push_back(gauge);
  return out;
}

}  // namespace collreplay
