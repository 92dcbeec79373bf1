#include "bench/compute/cuda/memory_kernels.hpp"

#include <algorithm>

#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

constexpr int kThreads = 256;        // reduce blocks
constexpr int kStreamThreads = 128;  // vector and generic blocks, as PyTorch's elementwise kernels

__device__ inline uint4 mix(uint4 a, uint4 b) {
  return make_uint4(a.x ^ b.y, a.y + b.z, a.z ^ b.w, a.w + b.x);
}

// Contiguous streams in 16-byte words, as PyTorch's vectorized elementwise kernels move them:
// each thread loads kUnroll words of a block-contiguous chunk before storing any (independent
// loads in flight), word i of the input read and word i of the output written; the output
// carries what was read, so no load is dead. Chunks wrap around the buffers, whose size is a
// multiple of the chunk.
constexpr int kUnroll = 4;

__global__ void vector_kernel(const uint4* src, uint4* dst, std::uint64_t cap_words,
                              std::uint64_t start_word, std::uint64_t in_words,
                              std::uint64_t out_words) {
  const std::uint64_t n = in_words > out_words ? in_words : out_words;
  const std::uint64_t chunk = static_cast<std::uint64_t>(kUnroll) * blockDim.x;
  const std::uint64_t step = chunk * gridDim.x;
  uint4 acc = make_uint4(threadIdx.x, blockIdx.x, 0, 0);
  std::uint64_t base = blockIdx.x * chunk;
  std::uint64_t wrapped = (start_word + base) % cap_words;
  for (; base < n; base += step) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t at = u * blockDim.x + threadIdx.x;
      v[u] = base + at < in_words ? src[wrapped + at] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint64_t at = u * blockDim.x + threadIdx.x;
      if (base + at < out_words) dst[wrapped + at] = mix(v[u], acc);
      acc = mix(acc, v[u]);
    }
    wrapped += step;
    while (wrapped >= cap_words) wrapped -= cap_words;
  }
  if (out_words == 0 && acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u) dst[0] = acc;
}

// Strength-reduced division by a runtime constant, as TensorIterator's OffsetCalculator does
// for every element of a broadcast or strided operand.
struct FastDivider {
  unsigned divisor, magic, shift;
  __device__ unsigned div(unsigned n) const {
    return static_cast<unsigned>((static_cast<unsigned long long>(n) * magic) >> 32) >> shift;
  }
};

FastDivider make_divider(unsigned d) {
  unsigned shift = 0;
  while ((1u << shift) < d) ++shift;
  const unsigned long long magic = ((1ull << 32) * ((1ull << shift) - d)) / d + 1;
  return {d, static_cast<unsigned>(magic), shift};
}

// Elements one at a time, kUnroll per thread per step (PyTorch's elementwise_kernel<128, 4>):
// each element's offset worked out in 32-bit arithmetic from a 2-D index (one division:
// TensorIterator collapses a broadcast operand's dims to two), then `in_words` words of In read
// and `out_words` words of Out written at that offset (a bf16 -> fp32 conversion reads one
// 2-byte word and writes one 4-byte word, as PyTorch's cast does). Elements wrap around
// `cap_elements`, the buffer's room for one element's widest footprint, below 2^31.
template <typename In, typename Out>
__global__ void generic_kernel(const In* src, Out* dst, unsigned cap_elements,
                               std::uint64_t elements, unsigned in_words, unsigned out_words,
                               FastDivider inner) {
  const unsigned chunk = kUnroll * blockDim.x;
  const std::uint64_t step = static_cast<std::uint64_t>(chunk) * gridDim.x;
  const auto step_wrapped = static_cast<unsigned>(step % cap_elements);
  In acc = static_cast<In>(threadIdx.x);
  std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * chunk;
  auto wrapped = static_cast<unsigned>(base % cap_elements);
  for (; base < elements; base += step) {
    unsigned offset[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned lo = wrapped + u * blockDim.x + threadIdx.x;
      const unsigned q = inner.div(lo), r = lo - q * inner.divisor;
      offset[u] = q * inner.divisor + r;
    }
    In v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = 0;
      if (base + u * blockDim.x + threadIdx.x < elements)
        for (unsigned w = 0; w < in_words; ++w) v[u] ^= src[offset[u] * in_words + w];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (base + u * blockDim.x + threadIdx.x < elements)
        for (unsigned w = 0; w < out_words; ++w)
          dst[offset[u] * out_words + w] = static_cast<Out>(v[u] + acc + w);
      acc ^= v[u];
    }
    wrapped += step_wrapped;
    if (wrapped >= cap_elements) wrapped -= cap_elements;
  }
  if (out_words == 0 && acc == static_cast<In>(0x5b)) dst[0] = static_cast<Out>(acc);
}

// A block per row (grid-stride over rows): the row's input words read by the block's threads,
// summed through warp shuffles and shared memory, the row's output written by thread 0's lanes.
__global__ void reduce_kernel(const uint4* src, uint4* dst, std::uint64_t cap_words,
                              std::uint64_t rows, std::uint64_t in_words_per_row,
                              std::uint64_t out_words_per_row) {
  __shared__ unsigned partial[kThreads / 32];
  for (std::uint64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    unsigned sum = 0;
    const std::uint64_t base = (row * in_words_per_row) % cap_words;
    for (std::uint64_t i = threadIdx.x; i < in_words_per_row; i += blockDim.x) {
      std::uint64_t w = base + i;
      while (w >= cap_words) w -= cap_words;
      const uint4 v = src[w];
      sum += v.x ^ v.y ^ v.z ^ v.w;
    }
    for (int step = 16; step > 0; step /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, step);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
      sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0;
      for (int step = 16; step > 0; step /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, step);
      for (std::uint64_t i = threadIdx.x; i < out_words_per_row; i += 32)
        dst[(row * out_words_per_row + i) % cap_words] = make_uint4(sum, i, row, 0);
    }
    __syncthreads();
  }
}

__global__ void timed_kernel(unsigned long long duration_ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < duration_ns);
}

// A block per chunk of kUnroll x kStreamThreads items (no grid-stride loop for the sizes of a
// training step), capped where the grid limit would be.
unsigned blocks_for(std::uint64_t items) {
  const std::uint64_t chunk = static_cast<std::uint64_t>(kUnroll) * kStreamThreads;
  return static_cast<unsigned>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>((items + chunk - 1) / chunk, 1u << 30)));
}

std::uint64_t words16(std::uint64_t bytes) { return (bytes + 15) / 16; }

// The widest word (4, 2 or 1 bytes) that divides an element's bytes on one side.
unsigned word_bytes(std::uint64_t per_element_bytes) {
  if (per_element_bytes % 4 == 0) return 4;
  return per_element_bytes % 2 == 0 ? 2 : 1;
}

template <typename In, typename Out>
void launch_generic_words(const KernelBuffers& b, cudaStream_t stream, std::uint64_t elements,
                          std::uint64_t in_per, std::uint64_t out_per) {
  const auto in_words = static_cast<unsigned>(in_per / sizeof(In));
  const auto out_words = static_cast<unsigned>(out_per / sizeof(Out));
  // Room for whole elements, a whole number of the kernel's chunks, below 2^31 so that the
  // index arithmetic stays 32-bit as PyTorch's.
  const std::uint64_t chunk = static_cast<std::uint64_t>(kUnroll) * kStreamThreads;
  const std::uint64_t widest = std::max<std::uint64_t>(std::max(in_per, out_per), 1);
  const std::uint64_t cap_elements =
      std::min<std::uint64_t>(b.capacity_bytes / widest / chunk * chunk, 1ull << 30);
  generic_kernel<In, Out><<<blocks_for(elements), kStreamThreads, 0, stream>>>(
      static_cast<const In*>(b.src), static_cast<Out*>(b.dst), static_cast<unsigned>(cap_elements),
      elements, in_words, out_words, make_divider(128));
}

template <typename In>
void launch_generic_out(const KernelBuffers& b, cudaStream_t stream, std::uint64_t elements,
                        std::uint64_t in_per, std::uint64_t out_per) {
  switch (word_bytes(out_per)) {
    case 4: return launch_generic_words<In, unsigned>(b, stream, elements, in_per, out_per);
    case 2: return launch_generic_words<In, unsigned short>(b, stream, elements, in_per, out_per);
    default: return launch_generic_words<In, unsigned char>(b, stream, elements, in_per, out_per);
  }
}

void launch_generic(const KernelSlice& k, const KernelBuffers& b, cudaStream_t stream) {
  const std::uint64_t elements = std::max<std::uint64_t>(k.elements, 1);
  // Per element: a broadcast operand's few bytes (a norm's weight) fall out of the division.
  const std::uint64_t in_per = k.read_bytes / elements, out_per = k.write_bytes / elements;
  switch (word_bytes(in_per)) {
    case 4: return launch_generic_out<unsigned>(b, stream, elements, in_per, out_per);
    case 2: return launch_generic_out<unsigned short>(b, stream, elements, in_per, out_per);
    default: return launch_generic_out<unsigned char>(b, stream, elements, in_per, out_per);
  }
}

void launch_reduce(const KernelSlice& k, const KernelBuffers& b, cudaStream_t stream) {
  const std::uint64_t inner = std::max<std::uint64_t>(k.inner, 1);
  const std::uint64_t rows = std::max<std::uint64_t>(k.elements / inner, 1);
  const std::uint64_t in_per_row = std::max<std::uint64_t>(words16(k.read_bytes / rows), 1);
  const std::uint64_t out_per_row = words16(k.write_bytes / rows);
  const auto blocks = static_cast<unsigned>(
      std::min<std::uint64_t>(rows, static_cast<std::uint64_t>(b.sm_count) * 8));
  reduce_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const uint4*>(b.src),
                                                 static_cast<uint4*>(b.dst),
                                                 b.capacity_bytes / 16, rows, in_per_row,
                                                 std::max<std::uint64_t>(out_per_row, 1));
}

}  // namespace

void launch_memory_kernel(const KernelSlice& k, SliceShare share, const KernelBuffers& b,
                          cudaStream_t stream) {
  if (b.src == nullptr || b.capacity_bytes < 16)
    throw UsageError("kernel '" + k.label + "' issued before its buffers were reserved");
  switch (k.kind) {
    case KernelKind::vector: {
      const std::uint64_t in = words16(k.read_bytes), out = words16(k.write_bytes);
      // Whole chunks of the kernel's, so that a chunk never straddles the buffers' end.
      const std::uint64_t chunk = static_cast<std::uint64_t>(kUnroll) * kStreamThreads;
      const std::uint64_t start =
          share.index * (std::max(in, out) / chunk * chunk) % (b.capacity_bytes / 16);
      vector_kernel<<<blocks_for(std::max(in, out)), kStreamThreads, 0, stream>>>(
          static_cast<const uint4*>(b.src), static_cast<uint4*>(b.dst), b.capacity_bytes / 16,
          start, in, out);
      break;
    }
    case KernelKind::generic: launch_generic(k, b, stream); break;
    case KernelKind::multi_tensor: launch_multi_tensor_kernel(k, share, b, stream); return;
    case KernelKind::reduce: launch_reduce(k, b, stream); break;
    case KernelKind::copy:
      for (std::uint64_t done = 0; done < k.write_bytes;) {
        const std::uint64_t n = std::min(k.write_bytes - done, b.capacity_bytes);
        CUDA_CHECK(cudaMemcpyAsync(b.dst, b.src, n, cudaMemcpyDeviceToDevice, stream));
        done += n;
      }
      return;
    case KernelKind::timed:
      timed_kernel<<<static_cast<unsigned>(b.sm_count), 128, 0, stream>>>(
          static_cast<unsigned long long>(k.duration_us * 1e3));
      break;
    case KernelKind::sync: return;  // the engine waits for its stream
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace collreplay
