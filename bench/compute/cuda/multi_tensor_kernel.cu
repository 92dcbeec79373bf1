// KernelKind::multi_tensor on the GPU: tensor lists walked the way torch's multi_tensor_apply
// (aten/src/ATen/native/cuda/MultiTensorApply.cuh, ForeachFunctors.cuh, fused_adam_utils.cuh)
// walks them, so a foreach op or a fused optimizer step reaches the bandwidth torch's does, not
// that of a plain streaming kernel: blocks of 512 threads, a block per 65536-element chunk of one
// tensor, at most 320 blocks a launch; each thread loads 4 elements of every list it reads with
// one aligned vector load per list (8 bytes for bf16), does its math (fp32 for a foreach op,
// torch's double-precision AdamW update for a fused optimizer), then stores 4 elements of every
// list it writes, 512 x 4 elements a step through its chunk; the list counts of torch's common
// shapes are compile-time, as its functors' depths are (foreach mul_ bf16: 18 registers a thread
// where the run-time-counted kernel took 40). Measured on an H100 beside torch
// 2.11's own kernels (sweeps/gpu/multi_tensor/; bench/RESULTS.md, "multi_tensor kernels"): fused
// AdamW 0.95-0.96 of torch's time (the vector kernel 0.73), foreach addcdiv_ 0.94, foreach mul_
// 1.20 (one list read and written: still slower than torch's).
//
// Lists are separate streams: list l of the reads at src + l x region, a region being an equal
// share of the scratch buffer in whole chunks; chunks wrap around their region, so the walk stays
// in HBM (the buffers are larger than L2). Writes go where torch's go: in place, into the list
// read at the same index (a foreach op's `_` form, a fused optimizer's param, exp_avg and
// exp_avg_sq), so each element's write lands on the line its read just brought into L2 and the
// DRAM pages it came from; only lists written past those read (an out-of-place result, a
// GradScaler's grad) go to dst + l x region. The first version wrote every list to dst, a
// second stream of pages: foreach mul_ then took 0.156 ms against torch's 0.109 on an H200
// (issue 38).
#include <algorithm>
#include <string>

#include "bench/compute/cuda/memory_kernels.hpp"
#include "collectives/device/cuda_check.hpp"
#include "common/errors.hpp"

namespace collreplay {
namespace {

constexpr int kBlockThreads = 512;                  // kBlockSize
constexpr std::uint64_t kChunkElements = 65536;     // kChunkSize
constexpr std::uint64_t kMaxBlocksPerLaunch = 320;  // depth_to_max_blocks (4 KB kernel arguments)
constexpr int kIlp = 4;                             // kILP: elements per thread per list per step
constexpr std::uint64_t kMaxLists = 5;              // torch's deepest lists (Adam with AMSGrad)

// kIlp elements of one list, loaded and stored as one aligned vector (torch's aligned_vector).
template <typename T>
struct alignas(sizeof(T) * kIlp) Pack {
  T v[kIlp];
};

// An element's bits as fp32 and back (the top bits of a float, as bf16 is): the arithmetic of
// torch's opmath type, without caring which narrow format the bytes stand for.
template <typename T>
__device__ inline float to_float(T bits) {
  if constexpr (sizeof(T) == 8)
    return __uint_as_float(static_cast<unsigned>(bits >> 32));
  else
    return __uint_as_float(static_cast<unsigned>(bits) << (32 - 8 * sizeof(T)));
}

// The scratch buffers hold random bits (NaNs, infinities, denormals, negative squares) where
// training holds finite values: a value read keeps its mantissa in [1, 2), so the math takes the
// fast paths it takes in training (a double division on a NaN or a denormal takes a slow one).
__device__ inline float finite(float f) {
  return __uint_as_float((__float_as_uint(f) & 0x007fffffu) | 0x3f800000u);
}

template <typename T>
__device__ inline T from_float(float f) {
  const unsigned u = __float_as_uint(f);
  if constexpr (sizeof(T) == 8)
    return static_cast<T>(u) << 32 | u;
  else
    return static_cast<T>(u >> (32 - 8 * sizeof(T)));
}

// A fused optimizer's update of one element (fused optimizers are the only multi_tensor_apply
// kernels that write more than one list): AdamW as torch's fused kernel works it, its
// hyperparameters doubles, so in double, a double division per element; the bias corrections
// depend only on the step count, worked out once per thread. `x` holds param, grad, exp_avg,
// exp_avg_sq as fp32. Its cost, not only its bytes, sets torch's speed.
struct AdamwTerms {
  float step_size, bias_correction2_sqrt;
};

__device__ inline AdamwTerms adamw_terms(float step) {
  constexpr double lr = 1e-3, beta1 = 0.9, beta2 = 0.999;
  const float bias_correction1 = 1 - pow(beta1, static_cast<double>(step));
  const float bias_correction2 = 1 - pow(beta2, static_cast<double>(step));
  return {static_cast<float>(lr / bias_correction1), sqrtf(bias_correction2)};
}

__device__ inline void adamw_update(const float x[kMaxLists], AdamwTerms t, float out[3]) {
  constexpr double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, weight_decay = 0.01, eps = 1e-8;
  float param = x[0], exp_avg = x[2], exp_avg_sq = x[3];
  const float grad = x[1];
  param -= lr * weight_decay * param;
  exp_avg = beta1 * exp_avg + (1 - beta1) * grad;
  exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad;
  const double denom = sqrtf(exp_avg_sq) / t.bias_correction2_sqrt + eps;
  param -= t.step_size * exp_avg / denom;
  out[0] = param;
  out[1] = exp_avg;
  out[2] = exp_avg_sq;
}

// One launch: blocks first_chunk .. first_chunk + gridDim.x - 1 of the slice's chunks. Every
// output element depends on every list read (no dead loads); with nothing to write, a store
// no input reaches keeps the loads. kFused (several lists written): a fused optimizer's update;
// otherwise a foreach op's few fp32 operations, in a kernel of its own so that it holds as few
// registers (as many resident blocks) as torch's foreach kernels do. kReads / kWrites: the list
// counts at compile time, as torch's functors have their depth (a loop body of the loads, math and
// stores the op needs and no other); -1 for the rare shapes, counted at run time.
template <typename T, bool kFused, int kReads, int kWrites>
__global__ void __launch_bounds__(kBlockThreads)
    multi_tensor_kernel(T* lists, T* extra, std::uint64_t region_elements,
                        std::uint64_t region_chunks, std::uint64_t first_chunk,
                        std::uint64_t elements, int run_reads, int run_writes) {
  const int reads = kReads >= 0 ? kReads : run_reads;
  const int writes = kWrites >= 0 ? kWrites : run_writes;
  const std::uint64_t chunk = first_chunk + blockIdx.x;
  const std::uint64_t left = elements - chunk * kChunkElements;
  // Within a chunk, 32-bit indices (65536 elements at most).
  const unsigned n = static_cast<unsigned>(left < kChunkElements ? left : kChunkElements);
  const std::uint64_t at = chunk % region_chunks * kChunkElements;
  const std::uint64_t region_packs = region_elements / kIlp;
  // Each list's address of this chunk worked out once per block, as torch's init_args does.
  const Pack<T>* in[kMaxLists];
  Pack<T>* out[kMaxLists];
#pragma unroll
  for (int l = 0; l < static_cast<int>(kMaxLists); ++l) {
    auto* own = reinterpret_cast<Pack<T>*>(lists + at) + l * region_packs;
    in[l] = own;
    out[l] = l < reads ? own : reinterpret_cast<Pack<T>*>(extra + at) + l * region_packs;
  }
  // A step count the compiler cannot fold: the bias corrections cost their pow once per thread.
  const AdamwTerms terms =
      kFused ? adamw_terms(1.0f + static_cast<float>(blockIdx.x & 1)) : AdamwTerms{};
  for (unsigned i = threadIdx.x; i * kIlp < n; i += blockDim.x) {
    Pack<T> r[kMaxLists];
#pragma unroll
    for (int l = 0; l < static_cast<int>(kMaxLists); ++l)
      if (l < reads) r[l] = in[l][i];
    float result[3][kIlp];
#pragma unroll
    for (int e = 0; e < kIlp; ++e) {
      float x[kMaxLists];
      float sum = 0.f;
#pragma unroll
      for (int l = 0; l < static_cast<int>(kMaxLists); ++l) {
        x[l] = l < reads ? finite(to_float(r[l].v[e])) : 0.f;
        sum += x[l];
      }
      if constexpr (kFused) {
        float updated[3];
        adamw_update(x, terms, updated);
        // A fifth list read (AMSGrad's max) reaches every list written; a list written past
        // exp_avg_sq (a GradScaler's grad, AMSGrad's max) takes exp_avg_sq's value.
#pragma unroll
        for (int j = 0; j < 3; ++j) result[j][e] = updated[j] + (reads > 4 ? sum : 0.f);
      } else {
        result[0][e] = fmaf(sum, 0.999f, x[0]);  // mul_, add_, addcdiv_: an fma or two
        result[1][e] = result[2][e] = result[0][e];
      }
    }
#pragma unroll
    for (int l = 0; l < static_cast<int>(kMaxLists); ++l)
      if (l < writes) {
        Pack<T> o;
#pragma unroll
        for (int e = 0; e < kIlp; ++e) o.v[e] = from_float<T>(result[l < 3 ? l : 2][e]);
        out[l][i] = o;
      }
    if (writes == 0 && result[0][0] == 1234.5f) out[0][i] = r[0];
  }
}

// The kernel for these list counts: torch's common shapes compiled for their counts (foreach
// mul_ / add_ / lerp_ / addcdiv_, fused AdamW), the rest counted at run time.
template <typename T>
auto kernel_for(int reads, int writes) -> decltype(&multi_tensor_kernel<T, false, -1, -1>) {
  if (writes > 1)
    return reads == 4 && writes == 3 ? multi_tensor_kernel<T, true, 4, 3>
                                     : multi_tensor_kernel<T, true, -1, -1>;
  if (writes == 1) switch (reads) {
      case 1: return multi_tensor_kernel<T, false, 1, 1>;
      case 2: return multi_tensor_kernel<T, false, 2, 1>;
      case 3: return multi_tensor_kernel<T, false, 3, 1>;
    }
  return multi_tensor_kernel<T, false, -1, -1>;
}

template <typename T>
void launch_lists(const KernelSlice& k, const KernelBuffers& b, cudaStream_t stream,
                  const MultiTensorOperands& lists) {
  // Whole vectors: a tensor whose size is not a multiple of 4 takes torch's scalar path, a few
  // elements at the end of a chunk; rounding up stands for it.
  const std::uint64_t elements =
      std::max<std::uint64_t>((k.elements + kIlp - 1) / kIlp * kIlp, kIlp);
  const std::uint64_t widest = std::max<std::uint64_t>(std::max(lists.reads, lists.writes), 1);
  const std::uint64_t region_chunks = b.capacity_bytes / sizeof(T) / widest / kChunkElements;
  if (region_chunks == 0)
    throw RuntimeError("kernel '" + k.label + "': its buffers hold no chunk of each of its " +
                       std::to_string(widest) + " tensor lists");
  const std::uint64_t chunks = (elements + kChunkElements - 1) / kChunkElements;
  // One launch of the slice is one of torch's; a share above 320 chunks (tensors that did not
  // fill their launches as evenly as the slice's count assumed) takes further launches, as
  // torch's would.
  for (std::uint64_t first = 0; first < chunks; first += kMaxBlocksPerLaunch) {
    const auto blocks = static_cast<unsigned>(std::min(chunks - first, kMaxBlocksPerLaunch));
    auto* kernel = kernel_for<T>(static_cast<int>(lists.reads), static_cast<int>(lists.writes));
    // The lists read are written in place: the scratch source holds no value anyone reads back
    // (every read is made finite first), so the engine's kernels may overwrite it.
    kernel<<<blocks, kBlockThreads, 0, stream>>>(
        static_cast<T*>(const_cast<void*>(b.src)), static_cast<T*>(b.dst),
        region_chunks * kChunkElements,
        region_chunks, first, elements, static_cast<int>(lists.reads),
        static_cast<int>(lists.writes));
    CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

void launch_multi_tensor_kernel(const KernelSlice& k, const KernelBuffers& b, cudaStream_t stream) {
  const MultiTensorOperands lists = multi_tensor_operands(k);
  if (lists.reads > kMaxLists || lists.writes > kMaxLists)
    throw UsageError("kernel '" + k.label + "' reads " + std::to_string(lists.reads) +
                     " and writes " + std::to_string(lists.writes) +
                     " tensor lists; multi_tensor_apply takes at most 5");
  if (lists.reads + lists.writes == 0) return;  // no bytes: torch launches nothing either
  switch (k.operand_element_bytes) {
    case 1: return launch_lists<unsigned char>(k, b, stream, lists);
    case 2: return launch_lists<unsigned short>(k, b, stream, lists);
    case 4: return launch_lists<unsigned>(k, b, stream, lists);
    case 8: return launch_lists<unsigned long long>(k, b, stream, lists);
  }
  throw UsageError("kernel '" + k.label + "': operand_element_bytes " +
                   std::to_string(k.operand_element_bytes) + " is not 1, 2, 4 or 8");
}

}  // namespace collreplay
