// torch._grouped_mm as torch 2.11 runs it on CUDA (aten/src/ATen/native/cuda/GroupedBlas.cpp,
// GroupMM.cu), as the work replay runs for a grouped GEMM (GemmShape::group_rows). With bf16
// operands on a GPU of compute capability 9.x or 10.x torch launches one persistent CUTLASS
// kernel over every group's output tiles; anywhere else it loops over the groups, an mm each.
// The kernel's cost is its tiles: a group's partial tile costs a full one, so a group of 1,030
// rows under 128-row tiles does the work of 1,152. One batched cuBLASLt GEMM of the same tiles
// stands for it, a batch entry per non-empty group, each over its own expert's weight (so the
// weights are read as torch's kernel reads them: Qwen3-30B-A3B's 128 experts read 805 MB a
// GEMM where one weight would stay in L2) and over the groups' mean rows (or K where groups
// split K, the weight gradient), each group's rounded up to the tile first.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "common/dtype.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

// How the GPU engine runs a grouped GEMM (replay --grouped-gemm): as torch runs _grouped_mm on
// that GPU (`auto`: the tiles of its grouped kernel as one batched cuBLASLt GEMM, or its loop
// where it has no grouped kernel), as one cublasGemmGroupedBatchedEx (`cublas-grouped`), or as
// a cuBLASLt GEMM per group (`loop`). Only the last two compute each group's own product: `auto`
// gives every group the mean rows (replay's operands are reused buffers: time is what it stands
// for, not values).
enum class GroupedGemmPath { torch, cublas_grouped, loop };
// --grouped-gemm's word for a path, and back (UsageError naming the choices).
GroupedGemmPath grouped_gemm_path(const std::string& word);
const char* grouped_gemm_path_word(GroupedGemmPath path);

struct GroupedMmTile {
  std::int64_t m = 0, n = 0, k = 0;
};

// The tile of torch's grouped kernel for g on a GPU of compute capability `sm_major`, or none
// where torch loops instead (not bf16, or no grouped kernel for the GPU). sm 10.x: 64 x 128 x
// 128; sm 9.x: 64 x 128 x 128 where the mean group's M or N is at most 128, else 128 x 256 x 64.
std::optional<GroupedMmTile> torch_grouped_mm_tile(const GemmShape& g, DType t, int sm_major);

// The plain (batched) GEMM of g's tiles (see above); a plain g is returned as it is.
GemmShape grouped_tiles_as_one_gemm(const GemmShape& g, const GroupedMmTile& tile);

}  // namespace collreplay
