// The non-GEMM kernels of a schedule, run for real: each kind walks memory the way the
// framework's kernel of that kind does, so it takes about as long and contends for memory
// bandwidth as that kernel does beside NCCL. vector: 16-byte loads and stores over contiguous
// streams; generic: one element at a time with index arithmetic per element (PyTorch's
// TensorIterator path for broadcast, strided and dtype-converting operands); reduce: a block per
// row, reduced through warp shuffles; copy: cudaMemcpyAsync; timed: every SM busy for the
// duration; multi_tensor: torch's multi_tensor_apply (multi_tensor_kernel.cu). Operands wrap around
// two scratch buffers of `capacity` bytes each (larger than L2, so wrapping does not turn HBM
// traffic into cache hits). CUDA builds only.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>

#include "bench/compute/launch_order.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct KernelBuffers {
  const void* src = nullptr;
  void* dst = nullptr;
  std::uint64_t capacity_bytes = 0;  // of each, a multiple of 16
  int sm_count = 1;
  // Per multi_tensor kernel, the dynamic shared memory that holds it to torch's residency,
  // worked out (device queries, the kernel's attributes set) on its first launch on this
  // engine's device and not again on the host path of every launch.
  mutable std::map<const void*, std::size_t> residency_shared_bytes;
};

// Queues one launch of `k` (launches == 1; sync kinds are the caller's) on `stream`: `share`
// of its slice (Launch::share), which the vector and multi_tensor kinds start where the slice's
// share before it ended (wrapping around the buffers).
void launch_memory_kernel(const KernelSlice& k, SliceShare share, const KernelBuffers& buffers,
                          cudaStream_t stream);

// The multi_tensor kind (launch_memory_kernel calls it): one of torch's launches of the slice,
// filled as torch fills them (320 chunks, the rest in the last), more when the slice's count
// was short of its chunks.
void launch_multi_tensor_kernel(const KernelSlice& k, SliceShare share,
                                const KernelBuffers& buffers, cudaStream_t stream);

}  // namespace collreplay
