#include <utility>

#include "bench/preflight/gpu_health.hpp"
#include "collectives/transport/nvml/nvml_session.hpp"

namespace collreplay {
namespace {

// NVML's clocks-event reason bits (documented values, stable across driver releases). GPU idle
// (0x1) is left out: an idle GPU is not a throttled one.
constexpr std::pair<unsigned long long, const char*> kReasons[] = {
    {0x2ULL, "applications_clocks_setting"},
    {0x4ULL, "sw_power_cap"},
    {0x8ULL, "hw_slowdown"},
    {0x10ULL, "sync_boost"},
    {0x20ULL, "sw_thermal_slowdown"},
    {0x40ULL, "hw_thermal_slowdown"},
    {0x80ULL, "hw_power_brake_slowdown"},
    {0x100ULL, "display_clock_setting"},
};

GpuHealth read_one(unsigned index, nvmlDevice_t device) {
  GpuHealth gpu;
  gpu.index = static_cast<int>(index);
  char name[96] = "";
  if (nvmlDeviceGetName(device, name, sizeof name) == NVML_SUCCESS) gpu.name = name;
  nvmlPciInfo_t pci{};
  if (nvmlDeviceGetPciInfo(device, &pci) == NVML_SUCCESS) gpu.bus_id = pci.busId;
  // Each reading is best effort: a value NVML does not offer on this GPU stays 0.
  nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, &gpu.sm_clock_mhz);
  nvmlDeviceGetMaxClockInfo(device, NVML_CLOCK_SM, &gpu.max_sm_clock_mhz);
  nvmlDeviceGetClockInfo(device, NVML_CLOCK_MEM, &gpu.mem_clock_mhz);
  nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &gpu.temperature_c);
  nvmlUtilization_t utilization{};
  if (nvmlDeviceGetUtilizationRates(device, &utilization) == NVML_SUCCESS)
    gpu.util_pct = utilization.gpu;
  unsigned milliwatts = 0;
  if (nvmlDeviceGetPowerUsage(device, &milliwatts) == NVML_SUCCESS)
    gpu.power_w = milliwatts / 1000.0;
  if (nvmlDeviceGetEnforcedPowerLimit(device, &milliwatts) == NVML_SUCCESS)
    gpu.power_limit_w = milliwatts / 1000.0;
  unsigned long long reasons = 0;
  if (nvmlDeviceGetCurrentClocksEventReasons(device, &reasons) == NVML_SUCCESS)
    for (const auto& [bit, label] : kReasons)
      if (reasons & bit) gpu.throttle_reasons.emplace_back(label);
  return gpu;
}

}  // namespace

// Every GPU of the host, in NVML's order (PCI order; not CUDA_VISIBLE_DEVICES order).
GpuHealthReport read_gpu_health() {
  GpuHealthReport report;
  NvmlSession nvml;
  if (!nvml.ok()) {
    report.unavailable_reason = nvml.why();
    return report;
  }
  unsigned count = 0;
  if (const nvmlReturn_t status = nvmlDeviceGetCount(&count); status != NVML_SUCCESS) {
    report.unavailable_reason =
        std::string("NVML could not count GPUs: ") + nvmlErrorString(status);
    return report;
  }
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device{};
    if (nvmlDeviceGetHandleByIndex(i, &device) == NVML_SUCCESS)
      report.gpus.push_back(read_one(i, device));
  }
  return report;
}

}  // namespace collreplay
