#include "collectives/transport/nvlink.hpp"

#include "collectives/transport/nvml/nvml_session.hpp"

namespace collreplay {

int active_nvlink_count(const std::string& bus_id) {
  NvmlSession nvml;
  if (!nvml.ok() || bus_id.empty()) return -1;
  nvmlDevice_t device{};
  if (nvmlDeviceGetHandleByPciBusId(bus_id.c_str(), &device) != NVML_SUCCESS) return -1;
  int active = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    // Links a GPU does not have answer with an error: they simply do not count.
    if (nvmlDeviceGetNvLinkState(device, link, &state) == NVML_SUCCESS &&
        state == NVML_FEATURE_ENABLED)
      ++active;
  }
  return active;
}

}  // namespace collreplay
