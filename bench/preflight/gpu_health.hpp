// GPU health for preflight, read through NVML (nvml/gpu_health.cpp) where the build has nvml.h;
// elsewhere nvml/no_nvml.cpp reports why it cannot.
#pragma once
#include <string>
#include <vector>

namespace collreplay {

struct GpuHealth {
  int index = 0;
  std::string name, bus_id;
  unsigned sm_clock_mhz = 0, max_sm_clock_mhz = 0, mem_clock_mhz = 0;
  unsigned temperature_c = 0;
  unsigned util_pct = 0;  // share of the last sample period a kernel was running
  double power_w = 0, power_limit_w = 0;
  std::vector<std::string> throttle_reasons;  // empty when running unthrottled
};

struct GpuHealthReport {
  std::vector<GpuHealth> gpus;     // every GPU of this host
  std::string unavailable_reason;  // non-empty when NVML could not be read
};

GpuHealthReport read_gpu_health();

}  // namespace collreplay
