// What of a GPU's memory a training step's tensors may fill: the card's memory less what the
// process holds beside them, measured on an H200 with torch 2.11 and NCCL 2.28.9
// (sweeps/gpu/memory/step_memory.py; bench/RESULTS.md, "Memory beside the step's tensors"):
//  - the CUDA context with cuBLAS's workspace and the loaded kernels: 0.72 GB (kCudaContextBytes);
//  - NCCL's buffers: 0.39-0.59 GB for one communicator (one rank; two ranks over sockets), room
//    for two process groups (kNcclBuffersBytes);
//  - the caching allocator's slack: what it needs beyond the step's allocated peak. Measured on
//    FSDP2 steps of Qwen2.5-7B on one H200 (4 and 8 layers, 4,096-16,384 tokens, with and
//    without recompute; bench/RESULTS.md, "Memory beside the step's tensors"), as a share of
//    what a step allocates and frees (the peak less what outlives the step: parameter shards,
//    optimizer states, a persistent gradient buffer), it is 7-29% under the smallest cap the
//    step runs in (set_per_process_memory_fraction, bisected: the allocator frees its cached
//    blocks and retries before it fails) and 16-61% when nothing caps it: what it takes when
//    there is room, not what it needs. It grows with what churns, not with what stays.
// A step fits when what stays + what churns x (1 + kSlackHigh) + context + NCCL <= the card's
// memory; it is tight when that holds only at kSlackLow (the ends of the needed slack).
#pragma once
#include <cstdint>
#include <string>

namespace collreplay::project {

inline constexpr std::uint64_t kGiB = 1ULL << 30;
inline constexpr std::uint64_t kCudaContextBytes = 720'000'000;
inline constexpr std::uint64_t kNcclBuffersBytes = 1'200'000'000;
inline constexpr double kSlackLow = 0.07, kSlackHigh = 0.29;

struct MemoryBudget {
  std::uint64_t capacity_bytes = 0;  // the GPU's memory
  std::string capacity_source;       // "h200 (141 GiB)", "--gpu-memory-gib 80"

  // What the allocator may reserve for the step's tensors: what the context and NCCL leave; 0
  // when they alone fill the card.
  std::uint64_t tensor_room_bytes() const {
    const std::uint64_t fixed = kCudaContextBytes + kNcclBuffersBytes;
    return capacity_bytes <= fixed ? 0 : capacity_bytes - fixed;
  }
};

// "needs 85.2 GiB of 74.3 GiB usable" and the like: bytes in GiB to one decimal.
std::string gib_text(std::uint64_t bytes);

}  // namespace collreplay::project
