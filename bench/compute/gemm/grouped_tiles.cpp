#include "bench/compute/gemm/grouped_tiles.hpp"

#include <numeric>

#include "common/errors.hpp"

namespace collreplay {
namespace {

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

}  // namespace

GroupedGemmPath grouped_gemm_path(const std::string& word) {
  for (GroupedGemmPath p :
       {GroupedGemmPath::torch, GroupedGemmPath::cublas_grouped, GroupedGemmPath::loop})
    if (word == grouped_gemm_path_word(p)) return p;
  throw UsageError("--grouped-gemm '" + word + "' is not auto, cublas-grouped or loop");
}

const char* grouped_gemm_path_word(GroupedGemmPath path) {
  switch (path) {
    case GroupedGemmPath::torch: return "auto";
    case GroupedGemmPath::cublas_grouped: return "cublas-grouped";
    case GroupedGemmPath::loop: return "loop";
  }
  return "?";
}

std::optional<GroupedMmTile> torch_grouped_mm_tile(const GemmShape& g, DType t, int sm_major) {
  if (t != DType::bf16 || (sm_major != 9 && sm_major != 10)) return std::nullopt;
  constexpr GroupedMmTile kSmall{64, 128, 128}, kLarge{128, 256, 64};
  if (sm_major == 10) return kSmall;
  // torch judges the mean group: M is A's rows over the groups where groups split M; where
  // they split K, M and N are the output's own. GemmShape's m is already that mean.
  return g.m <= 128 || g.n <= 128 ? kSmall : kLarge;
}

GemmShape grouped_tiles_as_one_gemm(const GemmShape& g, const GroupedMmTile& tile) {
  if (g.group_rows.empty()) return g;
  // Each non-empty group's rows (or K) rounded up to the tile; empty groups write no tiles
  // (torch leaves an empty group's weight gradient unwritten).
  const std::int64_t tile_rows = g.group_k ? tile.k : tile.m;
  std::int64_t padded = 0, groups = 0;
  for (std::int64_t rows : g.group_rows)
    if (rows > 0) {
      padded += round_up(rows, tile_rows);
      ++groups;
    }
  GemmShape one;
  one.label = g.label;
  one.m = g.m;
  one.n = g.n;
  one.k = g.k;
  one.a_transposed = g.a_transposed;
  one.batch = groups;
  // The mean, kept a multiple of 8 elements: 16-byte rows for cuBLASLt's fast kernels.
  (g.group_k ? one.k : one.m) = groups > 0 ? round_up((padded + groups - 1) / groups, 8) : 0;
  return one;
}

}  // namespace collreplay
