// Built without nvml.h: GPU health and the link matrix cannot be read (see Makefile).
#include "bench/preflight/gpu_health.hpp"
#include "bench/preflight/gpu_links.hpp"

namespace collreplay {

GpuHealthReport read_gpu_health() {
  GpuHealthReport report;
  report.unavailable_reason = "built without NVML";
  return report;
}

std::vector<std::vector<std::string>> read_gpu_links() { return {}; }

}  // namespace collreplay
