// torch-structured multi_tensor_apply kernels, built apart from replay (issue 38): launch metadata
// in a by-value kernel argument, a 64-bit index bounded by a run-time chunk size, as torch 2.11
// walks its lists; their times beside torch's own showed which part of the walk sets the time.
//   nvcc -O3 -arch=sm_90 -o /tmp/pv sweeps/gpu/multi_tensor/probe_variants.cu && /tmp/pv
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdint>
#include <vector>
constexpr int kBlock = 512, kILP = 4, kMaxBlocks = 320;
constexpr int64_t kChunk = 65536;
template <int D> struct Meta {
  void* addresses[D][36];
  int64_t numel[36];
  unsigned char block_to_tensor[kMaxBlocks];
  int block_to_chunk[kMaxBlocks];
};
template <typename T> struct alignas(sizeof(T) * kILP) V { T v[kILP]; };
template <typename T> __device__ __forceinline__ void ld(T* dst, const T* src, int64_t at) {
  *reinterpret_cast<V<T>*>(dst) = reinterpret_cast<const V<T>*>(src)[at];
}
template <typename T> __device__ __forceinline__ void st(T* dst, const T* src, int64_t at) {
  reinterpret_cast<V<T>*>(dst)[at] = *reinterpret_cast<const V<T>*>(src);
}
using bf = __nv_bfloat16;
// MODE 0 mul_(x, s); 1 addcdiv_(x, a, b, s); 2 fused adamw(p, g, m, v)
template <int D, int MODE>
__device__ void body(int64_t chunk_size, Meta<D>& tl, float s, double lr, double b1, double b2, double wd, double eps, float step) {
  const int t = tl.block_to_tensor[blockIdx.x];
  const int c = tl.block_to_chunk[blockIdx.x];
  int64_t n = tl.numel[t] - c * chunk_size;
  bf* a[D];
  for (int i = 0; i < D; ++i) a[i] = static_cast<bf*>(tl.addresses[i][t]) + c * chunk_size;
  bf r[D][kILP];
  float bc1 = 0, bc2s = 0, ss = 0;
  if (MODE == 2) { bc1 = 1 - pow(b1, (double)step); bc2s = sqrtf(1 - pow(b2, (double)step)); ss = lr / bc1; }
  for (int64_t i = threadIdx.x; i * kILP < n && i * kILP < chunk_size; i += blockDim.x) {
#pragma unroll
    for (int d = 0; d < D; ++d) ld(r[d], a[d], i);
#pragma unroll
    for (int e = 0; e < kILP; ++e) {
      if (MODE == 0) r[0][e] = __float2bfloat16(__bfloat162float(r[0][e]) * s);
      if (MODE == 1) r[0][e] = __float2bfloat16(__bfloat162float(r[0][e]) + s * __bfloat162float(r[1][e]) / __bfloat162float(r[2][e]));
      if (MODE == 2) {
        float p = __bfloat162float(r[0][e]), g = __bfloat162float(r[1][e]), m = __bfloat162float(r[2][e]), v = fabsf(__bfloat162float(r[3][e]));
        p -= lr * wd * p;
        m = b1 * m + (1 - b1) * g;
        v = b2 * v + (1 - b2) * g * g;
        const double den = sqrtf(v) / bc2s + eps;
        p -= ss * m / den;
        r[0][e] = __float2bfloat16(p); r[2][e] = __float2bfloat16(m); r[3][e] = __float2bfloat16(v);
      }
    }
    st(a[0], r[0], i);
    if (MODE == 2) { st(a[2], r[2], i); st(a[3], r[3], i); }
  }
}
template <int D, int MODE>
__global__ void __launch_bounds__(kBlock) kern(Meta<D> tl, int64_t chunk_size, float s, double lr, double b1, double b2, double wd, double eps, float step) {
  body<D, MODE>(chunk_size, tl, s, lr, b1, b2, wd, eps, step);
}
template <int D, int MODE>
float run(std::vector<bf*> lists, int64_t n) {
  int64_t chunks = (n + kChunk - 1) / kChunk;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto once = [&] {
    for (int64_t first = 0; first < chunks; first += kMaxBlocks) {
      Meta<D> tl{};
      for (int d = 0; d < D; ++d) tl.addresses[d][0] = lists[d];
      tl.numel[0] = n;
      int b = 0;
      for (int64_t c = first; c < chunks && b < kMaxBlocks; ++c, ++b) { tl.block_to_tensor[b] = 0; tl.block_to_chunk[b] = (int)c; }
      kern<D, MODE><<<b, kBlock>>>(tl, kChunk, 0.999f, 1e-3, 0.9, 0.999, 0.01, 1e-8, 1.0f);
    }
  };
  for (int w = 0; w < 3; ++w) once();
  cudaEventRecord(e0);
  for (int r = 0; r < 10; ++r) once();
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  return ms / 10;
}
__global__ void fill(bf* p, int64_t n, unsigned seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    p[i] = __float2bfloat16(1.0f + (h & 0xffff) / 65536.0f);
  }
}
int main() {
  for (int64_t n : {int64_t(67108864), int64_t(544997376)}) {
    std::vector<bf*> l(4);
    for (int i = 0; i < 4; ++i) { cudaMalloc(&l[i], n * 2); fill<<<1024, 256>>>(l[i], n, 17 * i + 1); }
    cudaDeviceSynchronize();
    float mul = run<1, 0>(l, n), addcdiv = run<3, 1>(l, n), fused = run<4, 2>(l, n);
    printf("torch-structured %lld elements: mul_ %.3f ms (%.0f GB/s), addcdiv_ %.3f ms (%.0f GB/s), fused_adamw %.3f ms (%.0f GB/s)\n",
           (long long)n, mul, 4.0 * n / mul / 1e6, addcdiv, 8.0 * n / addcdiv / 1e6, fused, 14.0 * n / fused / 1e6);
    for (auto p : l) cudaFree(p);
  }
  printf("status %s\n", cudaGetErrorString(cudaGetLastError()));
}
