#include "workloads/model/work.hpp"

namespace collreplay {

void Work::add_kernel(KernelSlice kernel) {
  kernel.at = static_cast<int>(gemms.size());
  kernels.push_back(std::move(kernel));
}

void Work::append(const Work& later) {
  const int shift = static_cast<int>(gemms.size());
  gemms.insert(gemms.end(), later.gemms.begin(), later.gemms.end());
  for (KernelSlice k : later.kernels) {
    k.at += shift;
    kernels.push_back(std::move(k));
  }
}

void Work::prepend(const Work& earlier) {
  const int shift = static_cast<int>(earlier.gemms.size());
  for (KernelSlice& k : kernels) k.at += shift;
  gemms.insert(gemms.begin(), earlier.gemms.begin(), earlier.gemms.end());
  kernels.insert(kernels.begin(), earlier.kernels.begin(), earlier.kernels.end());
}

std::uint64_t Work::launches() const {
  std::uint64_t n = gemms.size();
  for (const KernelSlice& k : kernels) n += k.launches;
  return n;
}

}  // namespace collreplay
