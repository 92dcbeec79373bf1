#include "collectives/device/device_pattern.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "collectives/device/cuda_check.hpp"
#include "collectives/values/fill_pattern.hpp"

namespace collreplay {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;  // grid-stride beyond this: enough to fill any current GPU

__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(float v) { return v; }
template <typename T>
__device__ inline T from_float(float v);
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ inline __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ inline float from_float<float>(float v) {
  return v;
}

int blocks_for(std::size_t count) {
  const std::size_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<int>(blocks < kMaxBlocks ? (blocks == 0 ? 1 : blocks) : kMaxBlocks);
}

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

template <typename T>
__global__ void fill_kernel(T* buf, std::size_t count, std::uint64_t seed, int rank,
                            std::uint64_t index_offset) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    buf[i] = from_float<T>(static_cast<float>(fill_value(seed, rank, index_offset + i)));
}

template <typename T>
__global__ void fill_constant_kernel(T* buf, std::size_t count, float value) {
  const T converted = from_float<T>(value);
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    buf[i] = converted;
}

template <typename T>
__global__ void poke_kernel(T* buf, std::size_t index, float value) {
  buf[index] = from_float<T>(value);
}

// Adds this block's wrong count to *wrong: one atomic per warp.
__device__ inline void add_wrong(unsigned long long local, unsigned long long* wrong) {
  for (int lane_offset = 16; lane_offset > 0; lane_offset /= 2)
    local += __shfl_down_sync(0xffffffffu, local, lane_offset);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(wrong, local);
}

// What a check expects for element j of a block: one rank's fill value, or a sum over ranks.
struct OneRank {
  std::uint64_t seed;
  int rank;
  std::uint64_t base;
  __device__ float operator()(std::size_t j) const {
    return static_cast<float>(fill_value(seed, rank, base + j));
  }
};
struct SumOfRanks {
  std::uint64_t seed;
  int nranks;
  std::uint64_t base;
  __device__ float operator()(std::size_t j) const {
    int sum = 0;
    for (int r = 0; r < nranks; ++r) sum += fill_value(seed, r, base + j);
    return static_cast<float>(sum);
  }
};

template <typename T, typename Expected>
__global__ void count_wrong_kernel(const T* buf, std::size_t count, Expected expected,
                                   unsigned long long* wrong) {
  unsigned long long local = 0;
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < count;
       j += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += to_float(buf[j]) != expected(j);  // NaN never equals: counted wrong
  add_wrong(local, wrong);
}

// Calls f.template operator()<T>() with T the element type of `t`.
template <typename F>
void with_type(DType t, F&& f) {
  switch (t) {
    case DType::bf16: f(__nv_bfloat16{}); return;
    case DType::f16: f(__half{}); return;
    case DType::f32: f(float{}); return;
    default: break;
  }
  // Callers check device_pattern_supports first: a silent no-op would count nothing wrong.
  throw RuntimeError("the device fill and check handle bf16, fp16 and fp32, not " +
                     std::string(dtype_name(t)));
}

// A device counter for one check, read back when the checks queued on the stream are done.
class WrongCounter {
 public:
  explicit WrongCounter(cudaStream_t stream) : stream_(stream) {
    CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&count_), sizeof *count_, stream_));
    CUDA_CHECK(cudaMemsetAsync(count_, 0, sizeof *count_, stream_));
  }
  ~WrongCounter() { cudaFreeAsync(count_, stream_); }
  WrongCounter(const WrongCounter&) = delete;
  WrongCounter& operator=(const WrongCounter&) = delete;
  unsigned long long* device() { return count_; }
  std::uint64_t read() {
    unsigned long long host = 0;
    CUDA_CHECK(cudaMemcpyAsync(&host, count_, sizeof host, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host;
  }

 private:
  cudaStream_t stream_;
  unsigned long long* count_ = nullptr;
};

template <typename Expected>
void queue_check(const void* buf, std::size_t count, DType t, Expected expected,
                 WrongCounter& wrong, cudaStream_t stream) {
  if (count == 0) return;
  with_type(t, [&](auto type_tag) {
    using T = decltype(type_tag);
    count_wrong_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(buf),
                                                                   count, expected, wrong.device());
  });
  CUDA_CHECK(cudaGetLastError());
}

const char* at(const void* base, std::size_t elements, DType t) {
  return static_cast<const char*>(base) + elements * dtype_size_bytes(t);
}

}  // namespace

void device_fill(void* buf, std::size_t count, DType t, std::uint64_t seed, int rank,
                 std::uint64_t index_offset, void* stream) {
  if (count == 0) return;
  with_type(t, [&](auto type_tag) {
    using T = decltype(type_tag);
    fill_kernel<<<blocks_for(count), kThreads, 0, as_stream(stream)>>>(static_cast<T*>(buf), count,
                                                                       seed, rank, index_offset);
  });
  CUDA_CHECK(cudaGetLastError());
}

void device_fill_constant(void* buf, std::size_t count, DType t, float value, void* stream) {
  if (count == 0) return;
  with_type(t, [&](auto type_tag) {
    using T = decltype(type_tag);
    fill_constant_kernel<<<blocks_for(count), kThreads, 0, as_stream(stream)>>>(
        static_cast<T*>(buf), count, value);
  });
  CUDA_CHECK(cudaGetLastError());
}

void device_poke(void* buf, std::size_t index, DType t, float value, void* stream) {
  with_type(t, [&](auto type_tag) {
    using T = decltype(type_tag);
    poke_kernel<<<1, 1, 0, as_stream(stream)>>>(static_cast<T*>(buf), index, value);
  });
  CUDA_CHECK(cudaGetLastError());
}

std::uint64_t device_count_wrong_all_gather(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int nranks, void* stream) {
  WrongCounter wrong(as_stream(stream));
  for (int p = 0; p < nranks; ++p)
    queue_check(at(recv, static_cast<std::size_t>(p) * count, t), count, t, OneRank{seed, p, 0},
                wrong, as_stream(stream));
  return wrong.read();
}

std::uint64_t device_count_wrong_reduce_scatter(const void* recv, std::size_t count, DType t,
                                                std::uint64_t seed, int rank, int nranks,
                                                void* stream) {
  WrongCounter wrong(as_stream(stream));
  queue_check(recv, count, t, SumOfRanks{seed, nranks, static_cast<std::uint64_t>(rank) * count},
              wrong, as_stream(stream));
  return wrong.read();
}

std::uint64_t device_count_wrong_all_reduce(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int nranks, void* stream) {
  WrongCounter wrong(as_stream(stream));
  queue_check(recv, count, t, SumOfRanks{seed, nranks, 0}, wrong, as_stream(stream));
  return wrong.read();
}

std::uint64_t device_count_wrong_all_to_all(const void* recv, std::size_t count, DType t,
                                            std::uint64_t seed, int rank, int nranks,
                                            void* stream) {
  WrongCounter wrong(as_stream(stream));
  for (int p = 0; p < nranks; ++p)
    queue_check(at(recv, static_cast<std::size_t>(p) * count, t), count, t,
                OneRank{seed, p, static_cast<std::uint64_t>(rank) * count}, wrong,
                as_stream(stream));
  return wrong.read();
}

std::uint64_t device_count_wrong_all_to_allv(const void* recv, DType t, std::uint64_t seed,
                                             int nranks, const std::size_t* recv_counts,
                                             const std::size_t* recv_displs,
                                             const std::size_t* peer_send_displs, void* stream) {
  WrongCounter wrong(as_stream(stream));
  for (int p = 0; p < nranks; ++p)
    queue_check(at(recv, recv_displs[p], t), recv_counts[p], t,
                OneRank{seed, p, peer_send_displs[p]}, wrong, as_stream(stream));
  return wrong.read();
}

}  // namespace collreplay
