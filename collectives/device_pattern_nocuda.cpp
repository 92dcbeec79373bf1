#include "collectives/device_pattern.hpp"

#include "common/errors.hpp"

namespace collreplay {
namespace {
[[noreturn]] void no_gpu() {
  throw UsageError("this build has no GPU data checks (built without CUDA)");
}
}  // namespace

void device_fill(void*, std::size_t, DType, std::uint64_t, int, std::uint64_t, void*) { no_gpu(); }
void device_poke(void*, std::size_t, DType, float, void*) { no_gpu(); }
std::uint64_t device_count_wrong_all_gather(const void*, std::size_t, DType, std::uint64_t, int,
                                            void*) { no_gpu(); }
std::uint64_t device_count_wrong_reduce_scatter(const void*, std::size_t, DType, std::uint64_t,
                                                int, int, void*) { no_gpu(); }
std::uint64_t device_count_wrong_all_reduce(const void*, std::size_t, DType, std::uint64_t, int,
                                            void*) { no_gpu(); }
std::uint64_t device_count_wrong_all_to_all(const void*, std::size_t, DType, std::uint64_t, int,
                                            int, void*) { no_gpu(); }
std::uint64_t device_count_wrong_all_to_allv(const void*, DType, std::uint64_t, int,
                                             const std::size_t*, const std::size_t*,
                                             const std::size_t*, void*) { no_gpu(); }

}  // namespace collreplay
