// Whether a GPU has NVLink, asked of NVML (nvml/nvlink.cpp) where the build has nvml.h; the NCCL
// backend uses it to tell "P2P over NVLink" from "P2P over PCIe" in NCCL's own log.
#pragma once
#include <string>

namespace collreplay {

// Active NVLinks of the GPU at PCI bus id `bus_id` ("0000:18:00.0"); -1 when unknown (no NVML,
// no driver, device not found).
int active_nvlink_count(const std::string& bus_id);

}  // namespace collreplay
