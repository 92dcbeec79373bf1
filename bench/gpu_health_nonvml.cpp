#include "bench/gpu_health.hpp"

namespace collreplay {

GpuHealthReport read_gpu_health() {
  GpuHealthReport report;
  report.unavailable_reason = "built without NVML";
  return report;
}

}  // namespace collreplay
