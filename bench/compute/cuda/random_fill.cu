#include "bench/compute/cuda/random_fill.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "collectives/device/cuda_check.hpp"
#include "collectives/values/fill_pattern.hpp"

namespace collreplay {
namespace {

template <typename T>
__device__ inline T convert(float v);
template <>
__device__ inline __nv_bfloat16 convert<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ inline __half convert<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ inline float convert<float>(float v) {
  return v;
}

template <typename T>
__global__ void random_kernel(T* buf, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ULL + i);
    // Top 24 bits -> [0, 1) -> [-1, 1): full mantissas, like real weights and activations.
    const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
    buf[i] = convert<T>(2.0f * u - 1.0f);
  }
}

template <typename T>
void launch(void* buf, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  const std::size_t blocks = (count + 255) / 256;
  random_kernel<<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
      static_cast<T*>(buf), count, seed);
}

}  // namespace

void device_fill_random(void* buf, std::size_t count, DType t, std::uint64_t seed, void* stream) {
  if (count == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (t) {
    case DType::bf16: launch<__nv_bfloat16>(buf, count, seed, s); break;
    case DType::f16: launch<__half>(buf, count, seed, s); break;
    case DType::f32: launch<float>(buf, count, seed, s); break;
    default: break;  // fp8 and the integers are never GEMM dtypes
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace collreplay
