// KernelKind::multi_tensor on the GPU: tensor lists walked the way torch's multi_tensor_apply
// (aten/src/ATen/native/cuda/MultiTensorApply.cuh, ForeachFunctors.cuh, fused_adam_utils.cuh)
// walks them, so a foreach op or a fused optimizer step takes the time torch's does, not that of
// a plain streaming kernel: blocks of 512 threads, a block per 65536-element chunk of one tensor,
// at most 320 blocks a launch; the launch's tensor addresses, sizes and block-to-chunk map passed
// by value as kernel arguments and read through a reference (torch's TensorListMetadata); each
// thread walks its chunk with a 64-bit index bounded by both the tensor's remaining elements and
// the run-time chunk size, loading 4 elements of every list it reads with one aligned vector load
// per list (8 bytes for bf16), doing its math in fp32 (torch's opmath, fused AdamW's too: its
// hyperparameters are cast to opmath before the loop), then storing 4 elements of every list it
// writes. The list counts of torch's common shapes are compile-time, as its functors' depths are.
//
// That structure is what sets the time, measured on an H200 beside torch 2.11 (a probe of kernel
// variants, since removed; bench/RESULTS.md, "The optimizer's kernels"): the same loads and math
// with a 32-bit index bounded by a compile-time chunk ran foreach mul_ at 0.56-0.79 of torch's
// time (the compiler overlaps iterations torch's loop keeps apart); in torch's structure 1.00
// (0.108 vs 0.109 ms at 64M elements, 0.773 vs 0.769 at 545M).
// Fused AdamW with its update in double took 1.20-1.24x torch's.
//
// Lists are separate streams: list l of the reads at src + l x region, a region being an equal
// share of the scratch buffer in whole chunks; chunks wrap around their region (each pass over it
// one "tensor" of the launch), so the walk stays in HBM (the buffers are larger than L2). Writes
// go where torch's go: in place, into the list read at the same index (a foreach op's `_` form, a
// fused optimizer's param, exp_avg and exp_avg_sq); only lists written past those read (an
// out-of-place result, a GradScaler's grad) go to dst + l x region.
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
// Registers per thread of torch 2.11's multi_tensor_apply kernels (its cu130 build for sm_90),
// read from its profiler trace on an H200 (sweeps/gpu/multi_tensor/torch_bandwidth.py prints
// them): fused AdamW bf16 61, foreach mul_ bf16 24. They set how many 512-thread blocks an SM
// holds: two for fused AdamW, so a launch of 320 blocks runs in two waves on 132 SMs. Ours need
// fewer (36: three blocks, one wave, 0.75 of torch's time), so ours are held to torch's residency.
constexpr int kTorchFusedRegisters = 61;
constexpr int kTorchForeachRegisters = 24;

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
// fast paths it takes in training (a division on a NaN or a denormal takes a slow one).
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
// kernels that write more than one list): AdamW as torch's fused kernel works it, in opmath
// (fp32; its double hyperparameters cast once), the bias corrections from the step count worked
// out once per block. `x` holds param, grad, exp_avg, exp_avg_sq as fp32.
struct AdamwTerms {
  float step_size, bias_correction2_sqrt;
};

__device__ inline AdamwTerms adamw_terms(float step) {
  constexpr float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f;
  const float bias_correction1 = 1 - powf(beta1, step);
  const float bias_correction2 = 1 - powf(beta2, step);
  return {lr / bias_correction1, sqrtf(bias_correction2)};
}

__device__ inline void adamw_update(const float x[kMaxLists], AdamwTerms t, float out[3]) {
  constexpr float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, weight_decay = 0.01f, eps = 1e-8f;
  float param = x[0], exp_avg = x[2], exp_avg_sq = x[3];
  const float grad = x[1];
  param -= lr * weight_decay * param;
  exp_avg = beta1 * exp_avg + (1 - beta1) * grad;
  exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad * grad;
  const float denom = sqrtf(exp_avg_sq) / t.bias_correction2_sqrt + eps;
  param -= t.step_size * exp_avg / denom;
  out[0] = param;
  out[1] = exp_avg;
  out[2] = exp_avg_sq;
}

// What one launch is told, as torch's TensorListMetadata tells it: each tensor's address per
// list and its elements, and each block's tensor and chunk. A tensor here is one pass over the
// lists' regions (chunks wrap around them), so a launch holds a few.
constexpr int kMaxTensorsPerLaunch = 8;
template <typename T>
struct LaunchLists {
  T* addresses[kMaxLists][kMaxTensorsPerLaunch];
  std::int64_t numel_for_tensor[kMaxTensorsPerLaunch];
  unsigned char block_to_tensor[kMaxBlocksPerLaunch];
  int block_to_chunk[kMaxBlocksPerLaunch];
};

// One block's chunk, as torch's functors walk it. kFused (several lists written): a fused
// optimizer's update; otherwise a foreach op's few fp32 operations, in a kernel of its own so
// that it holds as few registers as torch's foreach kernels do. kReads / kWrites: the list counts
// at compile time, as torch's functors have their depth; -1 for rare shapes, counted at run
// time. Every output element depends on every list read (no dead loads); with nothing to write,
// a store no input reaches keeps the loads.
template <typename T, bool kFused, int kReads, int kWrites>
__device__ void walk_chunk(std::int64_t chunk_size, LaunchLists<T>& tl, int run_reads,
                           int run_writes) {
  const int reads = kReads >= 0 ? kReads : run_reads;
  const int writes = kWrites >= 0 ? kWrites : run_writes;
  const int tensor = tl.block_to_tensor[blockIdx.x];
  const int chunk = tl.block_to_chunk[blockIdx.x];
  const std::int64_t n = tl.numel_for_tensor[tensor] - chunk * chunk_size;
  Pack<T>* args[kMaxLists];
#pragma unroll
  for (int l = 0; l < static_cast<int>(kMaxLists); ++l)
    args[l] = reinterpret_cast<Pack<T>*>(tl.addresses[l][tensor] + chunk * chunk_size);
  // A step count the compiler cannot fold: the bias corrections cost their powf once a block.
  const AdamwTerms terms =
      kFused ? adamw_terms(1.0f + static_cast<float>(blockIdx.x & 1)) : AdamwTerms{};
  for (std::int64_t i = threadIdx.x; i * kIlp < n && i * kIlp < chunk_size; i += blockDim.x) {
    Pack<T> r[kMaxLists];
#pragma unroll
    for (int l = 0; l < static_cast<int>(kMaxLists); ++l)
      if (l < reads) r[l] = args[l][i];
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
        args[l][i] = o;
      }
    if (writes == 0 && result[0][0] == 1234.5f) args[0][i] = r[0];
  }
}

template <typename T, bool kFused, int kReads, int kWrites>
__global__ void __launch_bounds__(kBlockThreads)
    multi_tensor_kernel(LaunchLists<T> tl, std::int64_t chunk_size, int run_reads,
                        int run_writes) {
  walk_chunk<T, kFused, kReads, kWrites>(chunk_size, tl, run_reads, run_writes);
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

// Where the lists live: reads at src + l x region; a list written past those read at dst.
template <typename T>
struct ListRegions {
  T* list[kMaxLists];
  std::uint64_t region_chunks = 0;
};

template <typename T>
ListRegions<T> list_regions(const KernelSlice& k, const KernelBuffers& b,
                            const MultiTensorOperands& lists) {
  const std::uint64_t widest = std::max<std::uint64_t>(std::max(lists.reads, lists.writes), 1);
  ListRegions<T> r;
  r.region_chunks = b.capacity_bytes / sizeof(T) / widest / kChunkElements;
  if (r.region_chunks == 0)
    throw RuntimeError("kernel '" + k.label + "': its buffers hold no chunk of each of its " +
                       std::to_string(widest) + " tensor lists");
  const std::uint64_t region_elements = r.region_chunks * kChunkElements;
  // The lists read are written in place: the scratch source holds no value anyone reads back
  // (every read is made finite first), so the engine's kernels may overwrite it.
  for (std::uint64_t l = 0; l < kMaxLists; ++l)
    r.list[l] = (l < lists.reads ? static_cast<T*>(const_cast<void*>(b.src))
                                 : static_cast<T*>(b.dst)) + l * region_elements;
  return r;
}

// The metadata of the launch of the slice's chunks first .. first + blocks - 1 (counted from the
// start of the lists' walk, so a later share goes on where the one before it ended), the walk
// ending at element `end`: a new tensor at each pass over the regions.
template <typename T>
LaunchLists<T> launch_lists_metadata(const ListRegions<T>& regions, std::uint64_t end,
                                     std::uint64_t first, unsigned blocks) {
  LaunchLists<T> tl{};
  const std::uint64_t region_elements = regions.region_chunks * kChunkElements;
  int tensor = -1;
  std::uint64_t pass = ~std::uint64_t{0};
  for (unsigned block = 0; block < blocks; ++block) {
    const std::uint64_t chunk = first + block;
    if (chunk / regions.region_chunks != pass) {
      pass = chunk / regions.region_chunks;
      if (++tensor == kMaxTensorsPerLaunch)
        throw RuntimeError("multi_tensor launch wraps its regions more than " +
                           std::to_string(kMaxTensorsPerLaunch) + " times");
      for (std::uint64_t l = 0; l < kMaxLists; ++l) tl.addresses[l][tensor] = regions.list[l];
      tl.numel_for_tensor[tensor] =
          static_cast<std::int64_t>(std::min(region_elements, end - pass * region_elements));
    }
    tl.block_to_tensor[block] = static_cast<unsigned char>(tensor);
    tl.block_to_chunk[block] = static_cast<int>(chunk % regions.region_chunks);
  }
  return tl;
}

// Dynamic shared memory that holds `kernel` to the blocks per SM torch's kernel of
// `torch_registers` gets (registers are allocated in 8s; an SM holds at most its threads' worth
// of blocks); 0 when ours already holds no more.
template <typename Kernel>
std::size_t torch_residency_shared_bytes(Kernel kernel, int torch_registers) {
  int device = 0, ours = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  auto attribute = [device](cudaDeviceAttr what) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, what, device));
    return value;
  };
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ours, kernel, kBlockThreads, 0));
  const int torch_block_registers = kBlockThreads * ((torch_registers + 7) / 8 * 8);
  const int torch_blocks = std::max(
      1, std::min(attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / kBlockThreads,
                  attribute(cudaDevAttrMaxRegistersPerMultiprocessor) / torch_block_registers));
  if (ours <= torch_blocks) return 0;
  const auto bytes =
      static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor) /
                                   torch_blocks -
                               attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  // All of the SM's shared memory to the blocks, so that torch's count fit and no more.
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
  return bytes;
}

// The chunks share `share` of a slice walks: torch fills each launch to 320 blocks and leaves the
// rest to the last, unless its tensor cap closes launches sooner (a slice counted more launches
// than its chunks fill): then an even share each. The last share takes what the count left.
struct ChunkRange {
  std::uint64_t first = 0, last = 0;
};

ChunkRange share_chunks(std::uint64_t slice_chunks, SliceShare share) {
  const std::uint64_t count = std::max<std::uint64_t>(share.count, 1);
  const std::uint64_t full = (slice_chunks + kMaxBlocksPerLaunch - 1) / kMaxBlocksPerLaunch;
  const std::uint64_t per =
      full >= count ? kMaxBlocksPerLaunch : (slice_chunks + count - 1) / count;
  const std::uint64_t first = std::min(share.index * per, slice_chunks);
  return {first, share.index + 1 == count ? slice_chunks : std::min(first + per, slice_chunks)};
}

template <typename T>
void launch_lists(const KernelSlice& k, SliceShare share, const KernelBuffers& b,
                  cudaStream_t stream, const MultiTensorOperands& lists) {
  // The slice's elements (each launch carries its even share); whole vectors: a tensor whose
  // size is not a multiple of 4 takes torch's scalar path, a few elements at the end of a chunk,
  // and rounding up stands for it.
  const std::uint64_t elements = std::max<std::uint64_t>(
      (k.elements * std::max<std::uint64_t>(share.count, 1) + kIlp - 1) / kIlp * kIlp, kIlp);
  const ChunkRange range =
      share_chunks((elements + kChunkElements - 1) / kChunkElements, share);
  if (range.first == range.last) return;  // the launches before it took every chunk
  const ListRegions<T> regions = list_regions<T>(k, b, lists);
  const std::uint64_t end = std::min(elements, range.last * kChunkElements);
  auto* kernel = kernel_for<T>(static_cast<int>(lists.reads), static_cast<int>(lists.writes));
  auto [residency, first_launch] =
      b.residency_shared_bytes.try_emplace(reinterpret_cast<const void*>(kernel), 0);
  if (first_launch)
    residency->second = torch_residency_shared_bytes(
        kernel, lists.writes > 1 ? kTorchFusedRegisters : kTorchForeachRegisters);
  const std::size_t shared_bytes = residency->second;
  for (std::uint64_t first = range.first; first < range.last; first += kMaxBlocksPerLaunch) {
    const auto blocks =
        static_cast<unsigned>(std::min(range.last - first, kMaxBlocksPerLaunch));
    kernel<<<blocks, kBlockThreads, shared_bytes, stream>>>(
        launch_lists_metadata(regions, end, first, blocks),
        static_cast<std::int64_t>(kChunkElements), static_cast<int>(lists.reads),
        static_cast<int>(lists.writes));
    CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace

void launch_multi_tensor_kernel(const KernelSlice& k, SliceShare share, const KernelBuffers& b,
                                cudaStream_t stream) {
  const MultiTensorOperands lists = multi_tensor_operands(k);
  if (lists.reads > kMaxLists || lists.writes > kMaxLists)
    throw UsageError("kernel '" + k.label + "' reads " + std::to_string(lists.reads) +
                     " and writes " + std::to_string(lists.writes) +
                     " tensor lists; multi_tensor_apply takes at most 5");
  if (lists.reads + lists.writes == 0) return;  // no bytes: torch launches nothing either
  switch (k.operand_element_bytes) {
    case 1: return launch_lists<unsigned char>(k, share, b, stream, lists);
    case 2: return launch_lists<unsigned short>(k, share, b, stream, lists);
    case 4: return launch_lists<unsigned>(k, share, b, stream, lists);
    case 8: return launch_lists<unsigned long long>(k, share, b, stream, lists);
  }
  throw UsageError("kernel '" + k.label + "': operand_element_bytes " +
                   std::to_string(k.operand_element_bytes) + " is not 1, 2, 4 or 8");
}

}  // namespace collreplay
