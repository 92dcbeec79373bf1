#include "bench/monitor/prometheus_text.hpp"

#include <cstdio>
#include <map>
#include <sstream>

namespace collreplay {
namespace {

using Labels = std::map<std::string, std::string>;

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string label_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (const auto& [key, value] : labels) {
    if (out.size() > 1) out += ",";
    out += key + "=\"" + escape_label_value(value) + "\"";
  }
  return out + "}";
}

// Series grouped by family so each family's HELP/TYPE is written once, before its samples.
class Families {
 public:
  void add(const std::string& name, const std::string& type, const std::string& help,
           const Labels& labels, double value) {
    Family& f = families_[name];
    f.type = type;
    f.help = help;
    f.lines.push_back(name + label_text(labels) + " " + number(value));
  }
  std::string text() const {
    std::ostringstream out;
    for (const auto& [name, f] : families_) {
      out << "# HELP " << name << " " << f.help << "\n# TYPE " << name << " " << f.type << "\n";
      for (const std::string& line : f.lines) out << line << "\n";
    }
    return out.str();
  }

 private:
  struct Family {
    std::string type, help;
    std::vector<std::string> lines;
  };
  std::map<std::string, Family> families_;
};

}  // namespace

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string prometheus_text(const ExpositionInput& input) {
  Families families;
  const Labels who = {{"host", input.host}, {"rank", std::to_string(input.rank)}};
  for (const DeviceCounters& d : input.fabric.devices) {
    Labels labels = who;
    labels["source"] = d.source;
    labels["device"] = d.device;
    families.add("collreplay_fabric_transmit_bytes_total", "counter",
                 "Bytes the NIC or InfiniBand port has sent (since its counters started).", labels,
                 static_cast<double>(d.tx_bytes));
    families.add("collreplay_fabric_receive_bytes_total", "counter",
                 "Bytes the NIC or InfiniBand port has received (since its counters started).",
                 labels, static_cast<double>(d.rx_bytes));
  }
  for (const nlohmann::json& r : input.fabric_rates) {
    Labels labels = who;
    labels["source"] = r.value("source", "");
    labels["device"] = r.value("device", "");
    families.add("collreplay_fabric_transmit_bytes_per_second", "gauge",
                 "Send rate over the last sampling interval.", labels,
                 r.value("tx_bytes_per_s", 0.0));
    families.add("collreplay_fabric_receive_bytes_per_second", "gauge",
                 "Receive rate over the last sampling interval.", labels,
                 r.value("rx_bytes_per_s", 0.0));
  }
  for (const nlohmann::json& g : input.gpus) {
    Labels labels = who;
    labels["gpu"] = g.value("device", "");
    families.add("collreplay_gpu_utilization_percent", "gauge",
                 "Share of the last NVML sample period a kernel ran on the GPU.", labels,
                 g.value("util_pct", 0.0));
    families.add("collreplay_gpu_sm_clock_mhz", "gauge", "SM clock.", labels,
                 g.value("sm_clock_mhz", 0.0));
    families.add("collreplay_gpu_temperature_celsius", "gauge", "GPU temperature.", labels,
                 g.value("temp_c", 0.0));
    families.add("collreplay_gpu_power_watts", "gauge", "GPU board power.", labels,
                 g.value("power_w", 0.0));
    families.add("collreplay_gpu_throttled", "gauge",
                 "1 when NVML reports a clock-limiting reason other than idle.", labels,
                 g.contains("throttle_reasons") && !g["throttle_reasons"].empty() ? 1.0 : 0.0);
  }
  for (const Gauge& gauge : input.gauges) {
    Labels labels = who;
    labels.insert(gauge.labels.begin(), gauge.labels.end());
    families.add(gauge.name, "gauge", gauge.help, labels, gauge.value);
  }
  return families.text();
}

}  // namespace collreplay
