// The GPU-to-GPU link matrix of this host (Topology::gpu_links), through NVML where the build has
// nvml.h (nvml/gpu_links.cpp); empty elsewhere (nvml/no_nvml.cpp).
#pragma once
#include <string>
#include <vector>

namespace collreplay {

// links[i][j] for NVML's GPU order: "NV18" (18 active NVLinks, counting the ones through
// NVSwitches), else nvidia-smi's PCIe labels "PIX", "PXB", "PHB", "NODE", "SYS"; "X" on the
// diagonal; "?" where NVML did not say. Empty when NVML is unavailable.
std::vector<std::vector<std::string>> read_gpu_links();

}  // namespace collreplay
