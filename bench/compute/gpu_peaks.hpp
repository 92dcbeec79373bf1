// Dense bf16 tensor-core peaks of the GPUs that modeled compute (--compute model:GPU[@MFU]) and
// the projection can stand in for. Vendor datasheet figures without sparsity, SXM parts.
#pragma once
#include <array>
#include <optional>
#include <string_view>

namespace collreplay {

struct GpuPeak {
  std::string_view name;     // what --compute model:NAME takes (lower case)
  double bf16_dense_tflops;  // peak, TFLOP/s
  double hbm_gbytes;         // memory, GB
  double hbm_tbytes_per_s;   // memory bandwidth, TB/s
  // CUDA-core (non-tensor) fp32 peak, TFLOP/s: what per-element index arithmetic runs on, not
  // the tensor cores (A100 SXM 19.5, H100 SXM and H200 67, HGX B200 75: 600 over 8 GPUs).
  double fp32_tflops;
};

inline constexpr std::array<GpuPeak, 4> kGpuPeaks{{
    {"a100", 312.0, 80, 2.039, 19.5},
    {"h100", 989.4, 80, 3.35, 67.0},
    {"h200", 989.4, 141, 4.8, 67.0},
    {"b200", 2250.0, 180, 8.0, 75.0},
}};

// The dense bf16 peak of a GPU by the name CUDA gives it ("NVIDIA H100 80GB HBM3", "NVIDIA H100
// PCIe", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", "NVIDIA B200"), the first pattern it contains:
// NVIDIA's datasheets, sparsity figures halved (H100 SXM and H200 989.4, H100 PCIe 756, H100 NVL
// and H200 NVL 835.5, A100 SXM and PCIe 312, B200 2250). nullopt for a GPU not listed: MFU then
// has no peak to divide by, and says so (no figure beats a wrong one).
struct DevicePeak {
  std::string_view contains;
  double bf16_dense_tflops;
};
inline constexpr std::array<DevicePeak, 7> kDevicePeaks{{
    {"H100 PCIe", 756.0},
    {"H100 NVL", 835.5},
    {"H200 NVL", 835.5},
    {"H100", 989.4},
    {"H200", 989.4},
    {"A100", 312.0},
    {"B200", 2250.0},
}};

inline std::optional<double> device_bf16_dense_tflops(std::string_view cuda_name) {
  for (const DevicePeak& d : kDevicePeaks)
    if (cuda_name.find(d.contains) != std::string_view::npos) return d.bf16_dense_tflops;
  return std::nullopt;
}

inline std::optional<GpuPeak> find_gpu_peak(std::string_view name) {
  for (const GpuPeak& g : kGpuPeaks)
    if (g.name == name) return g;
  return std::nullopt;
}

}  // namespace collreplay
