// Seeded fill and exact checks of device buffers, run as CUDA kernels on a caller's stream, so
// multi-GiB results are checked without copying them to the host. Values follow
// fill_pattern.hpp (small integers), so every check is exact equality. The stream is passed as
// void* (a cudaStream_t) so host code includes this header without CUDA. Built from
// device_pattern.cu with CUDA; this folder's no_cuda.cpp throws UsageError elsewhere.
// Every check returns the number of wrong elements (and waits for the stream).
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/dtype.hpp"

namespace collreplay {

// The dtypes the kernels below handle; the others (and reductions other than a plain sum:
// plain_fill_check of collectives/values/check_values.hpp) are filled and checked on the host.
constexpr bool device_pattern_supports(DType t) {
  return t == DType::bf16 || t == DType::f16 || t == DType::f32;
}

// buf[i] = fill_value(seed, rank, index_offset + i) for i < count.
void device_fill(void* buf, std::size_t count, DType t, std::uint64_t seed, int rank,
                 std::uint64_t index_offset, void* stream);

// buf[i] = value for i < count (the poison around a benchmark's input and in its output).
void device_fill_constant(void* buf, std::size_t count, DType t, float value, void* stream);

// buf[index] = value (tests use it to corrupt one element on purpose).
void device_poke(void* buf, std::size_t index, DType t, float value, void* stream);

// recv holds count*nranks elements; element j came from rank j/count, index j%count.
std::uint64_t device_count_wrong_all_gather(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int nranks, void* stream);

// recv holds count elements of rank `rank`: sum over ranks r of fill(seed, r, rank*count + j).
std::uint64_t device_count_wrong_reduce_scatter(const void* recv, std::size_t count, DType t,
                                                std::uint64_t seed, int rank, int nranks,
                                                void* stream);

// recv holds count elements: sum over ranks r of fill(seed, r, j).
std::uint64_t device_count_wrong_all_reduce(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int nranks, void* stream);

// recv holds count*nranks elements; element j came from peer p = j/count, which sent its own
// element rank*count + j%count.
std::uint64_t device_count_wrong_all_to_all(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int rank, int nranks, void* stream);

// recv_counts[p] elements from peer p sit at recv_displs[p]; they are peer p's elements starting
// at peer_send_displs[p] (where p placed the block for this rank in its filled send buffer).
// The three arrays have nranks entries and live in host memory.
std::uint64_t device_count_wrong_all_to_allv(const void* recv, DType t, std::uint64_t seed,
                                             int nranks, const std::size_t* recv_counts,
                                             const std::size_t* recv_displs,
                                             const std::size_t* peer_send_displs, void* stream);

}  // namespace collreplay
