#include "workloads/plan/fsdp_padding.hpp"

#include "common/sizes.hpp"

namespace collreplay {
namespace {
std::uint64_t round_up(std::uint64_t n, std::uint64_t multiple) {
  return checked_mul((n + multiple - 1) / multiple, multiple, "padded parameter size");
}
}  // namespace

std::uint64_t fsdp1_flat_numel(const std::vector<const ParamTensor*>& params, int group_size,
                               bool use_orig_params, DType param_dtype) {
  const std::uint64_t align = 16 / dtype_size_bytes(param_dtype);
  std::uint64_t total = 0;
  for (const ParamTensor* p : params) {
    if (use_orig_params) total = round_up(total, align);
    total = checked_add(total, p->numel(), "flat parameter size");
  }
  return round_up(total, static_cast<std::uint64_t>(group_size));
}

std::uint64_t fsdp2_padded_numel(const ParamTensor& p, int group_size) {
  const std::uint64_t dim0 = static_cast<std::uint64_t>(p.shape.at(0));
  const std::uint64_t row = dim0 == 0 ? 0 : p.numel() / dim0;
  return checked_mul(round_up(dim0, static_cast<std::uint64_t>(group_size)), row,
                     "padded parameter size");
}

std::uint64_t fsdp2_unit_numel(const std::vector<const ParamTensor*>& params, int group_size) {
  std::uint64_t total = 0;
  for (const ParamTensor* p : params)
    total = checked_add(total, fsdp2_padded_numel(*p, group_size), "unit size");
  return total;
}

}  // namespace collreplay
