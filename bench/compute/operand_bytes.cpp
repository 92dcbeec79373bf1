#include "bench/compute/operand_bytes.hpp"

#include <algorithm>

#include "common/sizes.hpp"

namespace collreplay {
namespace {

std::uint64_t product(std::int64_t a, std::int64_t b, const char* what) {
  return checked_mul(static_cast<std::uint64_t>(std::max<std::int64_t>(a, 0)),
                     static_cast<std::uint64_t>(std::max<std::int64_t>(b, 0)), what);
}

}  // namespace

std::uint64_t host_gemm_operand_elements(const std::vector<GemmShape>& shapes) {
  std::uint64_t largest = 0;
  for (const GemmShape& g : shapes) {
    const std::uint64_t a = product(g.m, g.k, "GEMM operand A");
    const std::uint64_t b = product(g.k, g.n, "GEMM operand B");
    const std::uint64_t c = product(g.m, g.n, "GEMM operand C");
    largest =
        std::max(largest, checked_add(checked_add(a, b, "GEMM operands"), c, "GEMM operands"));
  }
  return largest;
}

std::uint64_t host_gemm_operand_bytes(const std::vector<GemmShape>& shapes) {
  return checked_mul(host_gemm_operand_elements(shapes), sizeof(float), "GEMM operand bytes");
}

std::uint64_t device_gemm_operand_bytes(const std::vector<GemmShape>& shapes, DType dtype) {
  std::uint64_t a = 0, b = 0, c = 0;
  for (const GemmShape& g : shapes) {
    const std::uint64_t batch = static_cast<std::uint64_t>(std::max<std::int64_t>(g.batch, 1));
    a = std::max(a, checked_mul(product(g.m, g.k, "GEMM operand A"), batch, "GEMM operand A"));
    b = std::max(b, checked_mul(product(g.k, g.n, "GEMM operand B"), batch, "GEMM operand B"));
    c = std::max(c, checked_mul(product(g.m, g.n, "GEMM operand C"), batch, "GEMM operand C"));
  }
  if (a + b + c == 0) return 0;
  return checked_mul(a + b + c, dtype_size_bytes(dtype), "GEMM operand bytes") +
         kGpuGemmWorkspaceBytes;
}

std::uint64_t kernel_buffer_each_bytes(std::uint64_t largest_launch_bytes, bool device) {
  const std::uint64_t lo = device ? std::uint64_t{256} << 20 : std::uint64_t{1} << 20;
  const std::uint64_t hi = device ? std::uint64_t{1} << 30 : std::uint64_t{32} << 20;
  // A whole number of 64 KiB: the vector kernel's chunks never straddle the end.
  constexpr std::uint64_t kGrain = std::uint64_t{64} << 10;
  return std::clamp((largest_launch_bytes + kGrain - 1) / kGrain * kGrain, lo, hi);
}

}  // namespace collreplay
