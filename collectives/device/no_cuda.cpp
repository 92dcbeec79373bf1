// Host-only build: the device kernels and device memory of this folder are not compiled (see
// Makefile); asking for them is a usage error.
#include "collectives/device/device_pattern.hpp"
#include "collectives/device/mpi_device_memory.hpp"
#include "collectives/device/stream_hold.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {
[[noreturn]] void no_cuda() {
  throw UsageError("this build has no CUDA: GPU buffers and GPU data checks are unavailable");
}
}  // namespace

void device_fill(void*, std::size_t, DType, std::uint64_t, int, std::uint64_t, void*) { no_cuda(); }
void device_fill_constant(void*, std::size_t, DType, float, void*) { no_cuda(); }
void device_poke(void*, std::size_t, DType, float, void*) { no_cuda(); }
std::uint64_t device_count_wrong_all_gather(const void*, std::size_t, DType, std::uint64_t, int,
                                            void*) {
  no_cuda();
}
std::uint64_t device_count_wrong_reduce_scatter(const void*, std::size_t, DType, std::uint64_t, int,
                                                int, void*) {
  no_cuda();
}
std::uint64_t device_count_wrong_all_reduce(const void*, std::size_t, DType, std::uint64_t, int,
                                            void*) {
  no_cuda();
}
std::uint64_t device_count_wrong_all_to_all(const void*, std::size_t, DType, std::uint64_t, int,
                                            int, void*) {
  no_cuda();
}
std::uint64_t device_count_wrong_all_to_allv(const void*, DType, std::uint64_t, int,
                                             const std::size_t*, const std::size_t*,
                                             const std::size_t*, void*) {
  no_cuda();
}

std::string mpi_device_select(int) { no_cuda(); }
void* mpi_device_alloc(std::size_t) { no_cuda(); }
void mpi_device_free(void*) { no_cuda(); }
void mpi_device_copy(void*, const void*, std::size_t) { no_cuda(); }

void hold_stream_until(void*, const std::atomic<bool>*) { no_cuda(); }

}  // namespace collreplay
