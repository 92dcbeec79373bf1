// What of a GPU's memory a training step's tensors may fill: the card's memory less what the
// process holds beside them. The reserve, per GPU:
//  - the CUDA context with cuBLAS's workspace and the loaded kernels (kCudaContextBytes);
//  - NCCL's buffers: per communicator and channel, a Simple, an LL128 and an LL buffer for each
//    peer it talks to (NCCL_BUFFSIZE 4 MiB for Simple: NCCL's docs, "Environment Variables"),
//    for the few process groups a layout creates (kNcclBuffersBytes);
//  - the caching allocator's rounding and fragmentation, a fraction of what it holds
//    (kAllocatorSlack): PyTorch's reserved memory above its allocated peak.
// Measured on the GPU machine: bench/RESULTS.md, "Memory beside the step's tensors".
#pragma once
#include <cstdint>
#include <string>

namespace collreplay::project {

inline constexpr std::uint64_t kGiB = 1ULL << 30;
inline constexpr std::uint64_t kCudaContextBytes = kGiB * 3 / 4;
inline constexpr std::uint64_t kNcclBuffersBytes = kGiB;
inline constexpr double kAllocatorSlack = 0.05;

struct MemoryBudget {
  std::uint64_t capacity_bytes = 0;  // the GPU's memory
  std::string capacity_source;       // "h200 (141 GiB)", "--gpu-memory-gib 80"

  std::uint64_t reserved_bytes() const {
    return kCudaContextBytes + kNcclBuffersBytes +
           static_cast<std::uint64_t>(kAllocatorSlack * static_cast<double>(capacity_bytes));
  }
  // What the step's tensors may take: 0 when the reserve alone fills the card.
  std::uint64_t usable_bytes() const {
    return capacity_bytes > reserved_bytes() ? capacity_bytes - reserved_bytes() : 0;
  }
};

// "needs 85.2 GiB of 74.3 GiB usable" and the like: bytes in GiB to one decimal.
std::string gib_text(std::uint64_t bytes);

}  // namespace collreplay::project
