#include <algorithm>

#include "bench/preflight/gpu_links.hpp"
#include "collectives/transport/nvml/nvml_session.hpp"

namespace collreplay {
namespace {

bool same_pci(const nvmlPciInfo_t& a, const nvmlPciInfo_t& b) {
  return a.domain == b.domain && a.bus == b.bus && a.device == b.device;
}

std::string pcie_label(nvmlDevice_t a, nvmlDevice_t b) {
  nvmlGpuTopologyLevel_t level{};
  if (nvmlDeviceGetTopologyCommonAncestor(a, b, &level) != NVML_SUCCESS) return "?";
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL: return "X";
    case NVML_TOPOLOGY_SINGLE: return "PIX";
    case NVML_TOPOLOGY_MULTIPLE: return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
    case NVML_TOPOLOGY_NODE: return "NODE";
    case NVML_TOPOLOGY_SYSTEM: return "SYS";
    default: return "?";
  }
}

}  // namespace

std::vector<std::vector<std::string>> read_gpu_links() {
  NvmlSession nvml;
  unsigned count = 0;
  if (!nvml.ok() || nvmlDeviceGetCount(&count) != NVML_SUCCESS || count == 0) return {};
  std::vector<nvmlDevice_t> devices(count);
  std::vector<nvmlPciInfo_t> pci(count);
  for (unsigned i = 0; i < count; ++i)
    if (nvmlDeviceGetHandleByIndex(i, &devices[i]) != NVML_SUCCESS ||
        nvmlDeviceGetPciInfo(devices[i], &pci[i]) != NVML_SUCCESS)
      return {};

  // Each active NVLink goes to another GPU (counted for that pair) or to an NVSwitch, which
  // reaches every GPU; a pair's switched links are the fewer of the two GPUs' switch links.
  std::vector<std::vector<int>> direct(count, std::vector<int>(count, 0));
  std::vector<int> to_switch(count, 0);
  for (unsigned i = 0; i < count; ++i)
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      nvmlEnableState_t state = NVML_FEATURE_DISABLED;
      if (nvmlDeviceGetNvLinkState(devices[i], link, &state) != NVML_SUCCESS ||
          state != NVML_FEATURE_ENABLED)
        continue;
      nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
      if (nvmlDeviceGetNvLinkRemoteDeviceType(devices[i], link, &type) == NVML_SUCCESS &&
          type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
        ++to_switch[i];
        continue;
      }
      nvmlPciInfo_t remote{};
      if (nvmlDeviceGetNvLinkRemotePciInfo(devices[i], link, &remote) != NVML_SUCCESS) continue;
      bool found = false;
      for (unsigned j = 0; j < count && !found; ++j)
        if (j != i && same_pci(remote, pci[j])) {
          ++direct[i][j];
          found = true;
        }
      if (!found) ++to_switch[i];  // not one of our GPUs: a switch NVML did not name as one
    }

  std::vector<std::vector<std::string>> links(count, std::vector<std::string>(count));
  for (unsigned i = 0; i < count; ++i)
    for (unsigned j = 0; j < count; ++j) {
      if (i == j) {
        links[i][j] = "X";
        continue;
      }
      const int nvlinks =
          std::max(direct[i][j], direct[j][i]) + std::min(to_switch[i], to_switch[j]);
      links[i][j] =
          nvlinks > 0 ? "NV" + std::to_string(nvlinks) : pcie_label(devices[i], devices[j]);
    }
  return links;
}

}  // namespace collreplay
