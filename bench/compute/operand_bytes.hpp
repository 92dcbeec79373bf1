// How much memory a compute engine's GEMM operands take for a set of shapes, known before
// anything is allocated (replay's memory check and --dry-run use it; the engines size by it).
#pragma once
#include <cstdint>
#include <vector>

#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// cuBLASLt's workspace, allocated once per GPU engine.
inline constexpr std::uint64_t kGpuGemmWorkspaceBytes = std::uint64_t{64} << 20;

// Host BLAS (fp32): one buffer, carved into A, B and C for each GEMM in turn (a batch reuses
// them), so it is as big as the largest single GEMM's A + B + C: what the largest op needs, not
// the largest A plus the largest B plus the largest C (for an LM head: its forward's B and its
// weight gradient's C, each the size of the head).
std::uint64_t host_gemm_operand_elements(const std::vector<GemmShape>& shapes);
std::uint64_t host_gemm_operand_bytes(const std::vector<GemmShape>& shapes);

// GPU (cuBLASLt): the largest A, B and C over the shapes, batches included, in `dtype`, plus the
// workspace.
std::uint64_t device_gemm_operand_bytes(const std::vector<GemmShape>& shapes, DType dtype);

// Non-GEMM kernels stream through a source and a destination buffer of this many bytes each:
// the largest launch's bytes, clamped on a GPU to [256 MiB, 1 GiB] (above L2, so wrapping
// around still reads HBM, and small beside the GEMM operands) and on a host to [1, 32] MiB.
std::uint64_t kernel_buffer_each_bytes(std::uint64_t largest_launch_bytes, bool device);
// Both buffers together.
inline std::uint64_t kernel_buffer_bytes(std::uint64_t largest_launch_bytes, bool device) {
  return 2 * kernel_buffer_each_bytes(largest_launch_bytes, device);
}

}  // namespace collreplay
