// Memory bandwidth of the GPUs that `--compute model:GPU` names (vendor datasheets, SXM parts),
// for the optimizer step of an observed fit (bench/compute/gpu_peaks.hpp holds their compute
// peaks). The optimizer streams the shard through memory and does little arithmetic, so its time
// is bytes over this bandwidth, not FLOPs over the peak.
#pragma once
#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace collreplay::project {

inline std::optional<double> hbm_gbyte_s(std::string_view gpu) {
  constexpr std::array<std::pair<std::string_view, double>, 4> known{
      {{"a100", 2039}, {"h100", 3350}, {"h200", 4800}, {"b200", 8000}}};
  for (const auto& [name, bandwidth] : known)
    if (name == gpu) return bandwidth;
  return std::nullopt;
}

}  // namespace collreplay::project
