#include "bench/compute/compute_scale.hpp"

#include <cmath>
#include <string>

#include "common/errors.hpp"

namespace collreplay {

std::vector<GemmShape> stretch_gemms(const ComputeOp& op, double scale) {
  if (!(scale >= 0) || !std::isfinite(scale))
    throw UsageError("compute scale must be a finite number >= 0, got " + std::to_string(scale));
  const double whole = std::floor(scale);
  const double remainder = scale - whole;
  std::vector<GemmShape> gemms;
  for (int run = 0; run < static_cast<int>(whole); ++run)
    gemms.insert(gemms.end(), op.gemms.begin(), op.gemms.end());
  if (remainder > 0) {
    for (const GemmShape& whole_gemm : op.gemms) {
      const GemmShape g = scale_gemm_rows(whole_gemm, remainder);
      if (g.m > 0 && g.k > 0) gemms.push_back(g);
    }
  }
  return gemms;
}

}  // namespace collreplay
