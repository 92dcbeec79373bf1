// What of a GPU's memory a training step's tensors may fill: the card's memory less what the
// process holds beside them, measured on an H200 with torch 2.11 and NCCL 2.28.9
// (sweeps/gpu/memory/step_memory.py; bench/RESULTS.md, "Memory beside the step's tensors"):
//  - the CUDA context with cuBLAS's workspace and the loaded kernels: 0.72 GB (kCudaContextBytes);
//  - NCCL's buffers: 0.39-0.59 GB for one communicator (one rank; two ranks over sockets), room
//    for two process groups (kNcclBuffersBytes);
//  - the caching allocator's slack: its reserved peak was 27% above its allocated peak over an
//    FSDP2 step of Qwen2.5-7B (4 layers, 2 x 2048) and 36% for a 0.5B at 1 x 1024 (kAllocatorSlack,
//    on the step's tensors).
// A step fits when its tensors x (1 + slack) + context + NCCL <= the card's memory.
#pragma once
#include <cstdint>
#include <string>

namespace collreplay::project {

inline constexpr std::uint64_t kGiB = 1ULL << 30;
inline constexpr std::uint64_t kCudaContextBytes = 720'000'000;
inline constexpr std::uint64_t kNcclBuffersBytes = 1'200'000'000;
inline constexpr double kAllocatorSlack = 0.27;

struct MemoryBudget {
  std::uint64_t capacity_bytes = 0;  // the GPU's memory
  std::string capacity_source;       // "h200 (141 GiB)", "--gpu-memory-gib 80"

  // The most a step's tensors may take: what the context and NCCL leave, less the allocator's
  // slack on the tensors themselves; 0 when the fixed part alone fills the card.
  std::uint64_t usable_bytes() const {
    const std::uint64_t fixed = kCudaContextBytes + kNcclBuffersBytes;
    if (capacity_bytes <= fixed) return 0;
    return static_cast<std::uint64_t>(static_cast<double>(capacity_bytes - fixed) /
                                      (1 + kAllocatorSlack));
  }
};

// "needs 85.2 GiB of 74.3 GiB usable" and the like: bytes in GiB to one decimal.
std::string gib_text(std::uint64_t bytes);

}  // namespace collreplay::project
