#include "bench/compute/launch_order.hpp"

#include <algorithm>
#include <cmath>

#include "bench/compute/compute_scale.hpp"

namespace collreplay {
namespace {

std::uint64_t scaled(std::uint64_t value, double factor) {
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(value) * factor));
}

}  // namespace

std::vector<Launch> launch_order(const ComputeOp& op, double scale) {
  std::vector<Launch> launches;
  auto add_kernels_at = [&](std::size_t at, std::size_t& next) {
    for (; next < op.kernels.size() && static_cast<std::size_t>(op.kernels[next].at) <= at;
         ++next) {
      const KernelSlice& k = op.kernels[next];
      const std::uint64_t n = std::max<std::uint64_t>(k.launches, 1);
      const double share = scale / static_cast<double>(n);
      Launch l;
      l.kernel = k;
      l.kernel.launches = 1;
      l.kernel.elements = scaled(k.elements, share);
      l.kernel.read_bytes = scaled(k.read_bytes, share);
      l.kernel.write_bytes = scaled(k.write_bytes, share);
      l.kernel.flops = k.flops * share;
      l.kernel.duration_us = k.duration_us * share;
      for (std::uint64_t i = 0; i < n; ++i) {
        l.share = {i, n};
        launches.push_back(l);
      }
    }
  };
  std::size_t next = 0;
  for (std::size_t g = 0; g < op.gemms.size(); ++g) {
    add_kernels_at(g, next);
    ComputeOp one;
    one.gemms = {op.gemms[g]};
    for (const GemmShape& s : stretch_gemms(one, scale)) {
      Launch l;
      l.is_gemm = true;
      l.gemm = s;
      launches.push_back(l);
    }
  }
  add_kernels_at(op.gemms.size(), next);
  if (!launches.empty() && op.host_us > 0) {
    const double each = op.host_us / static_cast<double>(launches.size());
    // A multi-tensor slice is one foreach call: its host time (dispatch over the tensor lists)
    // comes before its first launch, and multi_tensor_apply's launches then follow one launch's
    // host time apart, so the call's last chunks run on the GPU after the host is done with it.
    std::size_t first = 0;
    for (std::size_t i = 0; i < launches.size(); ++i) {
      Launch& l = launches[i];
      const bool burst = !l.is_gemm && l.kernel.kind == KernelKind::multi_tensor;
      if (!burst || l.share.index == 0) {
        first = i;
        l.host_us = each;
      } else {
        l.host_us = std::min(l.kernel.host_us_per_launch, each);
        launches[first].host_us += each - l.host_us;
      }
    }
  }
  return launches;
}

std::uint64_t largest_kernel_launch_bytes(const ComputeOp& op) {
  std::uint64_t most = 0;
  for (const KernelSlice& k : op.kernels) {
    const std::uint64_t n = std::max<std::uint64_t>(k.launches, 1);
    most = std::max(most, std::max(k.read_bytes, k.write_bytes) / n);
  }
  return most;
}

}  // namespace collreplay
