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
};

inline constexpr std::array<GpuPeak, 4> kGpuPeaks{{
    {"a100", 312.0, 80, 2.039},
    {"h100", 989.4, 80, 3.35},
    {"h200", 989.4, 141, 4.8},
    {"b200", 2250.0, 180, 8.0},
}};

inline std::optional<GpuPeak> find_gpu_peak(std::string_view name) {
  for (const GpuPeak& g : kGpuPeaks)
    if (g.name == name) return g;
  return std::nullopt;
}

}  // namespace collreplay
