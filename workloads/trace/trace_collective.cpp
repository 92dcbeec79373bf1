#include "workloads/trace/trace_collective.hpp"

#include <algorithm>
#include <optional>

#include "common/errors.hpp"

namespace collreplay::trace {
namespace {

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

std::string rank_text(const std::vector<int>& ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ",") + std::to_string(r);
  return "[" + text + "]";
}

// torch's names of the dtypes (c10::ScalarType); replay moves the ones below.
std::optional<DType> dtype_of(const std::string& torch_name) {
  if (torch_name == "BFloat16") return DType::bf16;
  if (torch_name == "Half") return DType::f16;
  if (torch_name == "Float") return DType::f32;
  if (torch_name == "Float8_e4m3fn") return DType::fp8;
  return std::nullopt;
}

// torch names a collective after the c10d call that issued it: _allgather_base,
// all_gather_into_tensor_coalesced, _reduce_scatter_base, allreduce, alltoall_base, ...
std::optional<CollectiveKind> kind_of(const std::string& name) {
  if (has(name, "allgather") || has(name, "all_gather")) return CollectiveKind::all_gather;
  if (has(name, "reduce_scatter")) return CollectiveKind::reduce_scatter;
  if (has(name, "allreduce") || has(name, "all_reduce")) return CollectiveKind::all_reduce;
  if (has(name, "alltoall") || has(name, "all_to_all")) return CollectiveKind::all_to_all;
  return std::nullopt;
}

}  // namespace

TracedGroup traced_group(const std::vector<int>& ranks, int world, const std::string& path) {
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  const int n = static_cast<int>(sorted.size());
  auto step_is = [&](int step) {
    for (int i = 1; i < n; ++i)
      if (sorted[static_cast<std::size_t>(i)] - sorted[static_cast<std::size_t>(i - 1)] != step)
        return false;
    return true;
  };
  if (n >= 1 && n <= world && world % n == 0 && sorted.front() >= 0 && sorted.back() < world) {
    if (n == world) return {GroupKind::world, 0};
    if (step_is(1) && sorted.front() % n == 0) return {GroupKind::shard, n};
    const int shard = world / n;
    if (step_is(shard) && sorted.front() < shard) return {GroupKind::replicate, shard};
  }
  throw UsageError("trace '" + path + "': process group " + rank_text(ranks) + " of a world of " +
                   std::to_string(world) +
                   " ranks is neither the world, a block of consecutive ranks nor a strided "
                   "replica group: replay has no such group");
}

CollectiveOp traced_collective(const GpuWork& kernel, int world, const std::string& path,
                               int& shard_group) {
  const TraceCollective& t = *kernel.collective;
  const std::string where = "trace '" + path + "': collective '" + t.name + "' (kernel '" +
                            kernel.label + "')";
  const std::optional<CollectiveKind> kind = kind_of(t.name);
  if (!kind) throw UsageError(where + ": replay has no such collective");
  const std::optional<DType> dtype = dtype_of(t.dtype);
  if (!dtype) throw UsageError(where + ": dtype '" + t.dtype + "' is not one replay moves");
  const TracedGroup group = traced_group(t.ranks, world, path);
  if (group.shard_group > 0) {
    if (shard_group > 0 && shard_group != group.shard_group)
      throw UsageError(where + ": shard groups of " + std::to_string(shard_group) + " and " +
                       std::to_string(group.shard_group) + " ranks in one trace");
    shard_group = group.shard_group;
  }
  CollectiveOp c;
  c.kind = *kind;
  c.dtype = *dtype;
  c.group = group.kind;
  // nccl-tests' S: the gathered output, the scattered input, the reduced or exchanged buffer.
  const std::int64_t nelems = *kind == CollectiveKind::all_gather ? t.out_nelems : t.in_nelems;
  if (nelems <= 0) throw UsageError(where + ": no elements");
  c.bytes = static_cast<std::uint64_t>(nelems) * dtype_size_bytes(*dtype);
  const auto parts = static_cast<std::uint64_t>(t.ranks.size());
  if (*kind != CollectiveKind::all_reduce && static_cast<std::uint64_t>(nelems) % parts != 0)
    throw UsageError(where + ": " + std::to_string(nelems) + " elements do not split evenly over " +
                     std::to_string(parts) + " ranks (uneven all-to-all is not replayed)");
  return c;
}

}  // namespace collreplay::trace
