#include "workloads/trace/trace_collective.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
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

// torch's dtype (c10::ScalarType name) as one replay moves: the same bytes per element times
// `per_element` (an int64 moves as two f32). One-byte types move as fp8 (never reduced).
struct Moved {
  DType dtype = DType::bf16;
  std::int64_t per_element = 1;
};
std::optional<Moved> moved_as(const std::string& t) {
  if (t == "BFloat16") return Moved{DType::bf16, 1};
  if (t == "Half" || t == "Short" || t == "UInt16") return Moved{DType::f16, 1};
  if (t == "Float" || t == "Int" || t == "UInt32") return Moved{DType::f32, 1};
  if (t == "Double" || t == "Long" || t == "UInt64" || t == "ComplexFloat")
    return Moved{DType::f32, 2};
  if (t == "Byte" || t == "Char" || t == "Bool" || t.rfind("Float8", 0) == 0)
    return Moved{DType::fp8, 1};
  return std::nullopt;
}

// torch names a call after the c10d method that issued it: _allgather_base,
// all_gather_into_tensor_coalesced, _reduce_scatter_base, allreduce, allreduce_coalesced,
// barrier (an all-reduce of one element), broadcast, _broadcast_oop, all_to_all, all_to_allv,
// send, recv. reduce, gather, scatter, allgather (the list form), recvAnySource: none.
std::optional<CollectiveKind> kind_of(const std::string& name) {
  if (name == "barrier") return CollectiveKind::all_reduce;
  if (name == "send") return CollectiveKind::send;
  if (name == "recv") return CollectiveKind::recv;
  if (has(name, "allgather") || has(name, "all_gather")) return CollectiveKind::all_gather;
  if (has(name, "reduce_scatter")) return CollectiveKind::reduce_scatter;
  if (has(name, "allreduce") || has(name, "all_reduce")) return CollectiveKind::all_reduce;
  if (has(name, "alltoall") || has(name, "all_to_all")) return CollectiveKind::all_to_all;
  if (has(name, "broadcast")) return CollectiveKind::broadcast;
  return std::nullopt;
}

std::vector<std::uint64_t> per_peer(const std::vector<std::int64_t>& splits, std::int64_t nelems,
                                    std::size_t n, std::int64_t per_element,
                                    const std::string& where) {
  if (splits.empty()) {  // an even side: nelems / n each
    if (nelems % static_cast<std::int64_t>(n) != 0)
      throw UsageError(where + ": " + std::to_string(nelems) + " elements without split sizes " +
                       "do not split over " + std::to_string(n) + " ranks");
    return std::vector<std::uint64_t>(
        n, static_cast<std::uint64_t>(nelems / static_cast<std::int64_t>(n) * per_element));
  }
  const std::int64_t rows = std::accumulate(splits.begin(), splits.end(), std::int64_t{0});
  if (splits.size() != n || (rows > 0 && nelems % rows != 0) || (rows == 0 && nelems != 0))
    throw UsageError(where + ": split sizes " + std::to_string(splits.size()) + " for a group of " +
                     std::to_string(n) + " do not fit its " + std::to_string(nelems) + " elements");
  const std::int64_t row = rows > 0 ? nelems / rows : 0;
  std::vector<std::uint64_t> counts;
  for (std::int64_t s : splits) counts.push_back(static_cast<std::uint64_t>(s * row * per_element));
  return counts;
}

CollectiveOp one_collective(const TraceCollective& t, int world, const std::string& where) {
  const std::optional<CollectiveKind> kind = kind_of(t.name);
  if (!kind)
    throw UsageError(where +
                     ": replay has no such collective (it replays all_gather, "
                     "reduce_scatter, all_reduce, barrier, broadcast, all_to_all(v), "
                     "send/recv): cut the step that holds it, or take another step with "
                     "--trace-step");
  // torch records its barrier with dtype Byte and no elements; NCCL reduces one f32.
  const std::optional<Moved> moved =
      t.name == "barrier" && t.dtype != "BFloat16" && t.dtype != "Half" ? Moved{DType::f32, 1}
                                                                         : moved_as(t.dtype);
  if (!moved)
    throw UsageError(where + ": dtype '" + t.dtype + "' is not one replay moves (it moves " +
                     "torch's 1-, 2-, 4- and 8-byte types): cut the step that holds it, or take " +
                     "another with --trace-step");
  const bool reduces =
      *kind == CollectiveKind::all_reduce || *kind == CollectiveKind::reduce_scatter;
  if (reduces && moved->dtype == DType::fp8)
    throw UsageError(where + ": a reduction of one-byte '" + t.dtype + "' elements: replay " +
                     "reduces bf16, f16 and f32 only");
  const TracedGroup group = traced_group(t.ranks, world, where);
  const std::size_t n = t.ranks.size();
  CollectiveOp c;
  c.kind = *kind;
  c.dtype = moved->dtype;
  c.group = group.kind;
  if (group.kind == GroupKind::strided) {
    c.group_size = group.size;
    c.group_stride = group.stride;
  }
  const std::uint64_t elem = dtype_size_bytes(c.dtype);
  std::vector<int> sorted = t.ranks;
  std::sort(sorted.begin(), sorted.end());
  // nccl-tests' S: the gathered output, the scattered input, the reduced, sent or exchanged buffer.
  std::int64_t nelems = *kind == CollectiveKind::all_gather ? t.out_nelems
                        : *kind == CollectiveKind::recv     ? t.out_nelems
                                                            : t.in_nelems;
  if (t.name == "barrier") nelems = 1;  // torch's barrier: an all-reduce of one element
  if (*kind == CollectiveKind::all_to_all) {
    std::vector<std::uint64_t> send =
        per_peer(t.in_splits, t.in_nelems, n, moved->per_element, where);
    std::vector<std::uint64_t> recv =
        per_peer(t.out_splits, t.out_nelems, n, moved->per_element, where);
    const bool even =
        std::all_of(send.begin(), send.end(), [&](auto v) { return v == send[0]; }) && send == recv;
    if (!even) {
      c.kind = CollectiveKind::all_to_allv;
      c.bytes = std::accumulate(send.begin(), send.end(), std::uint64_t{0}) * elem;
      c.send_counts = std::move(send);
      c.recv_counts = std::move(recv);
      return c;
    }
  }
  if (nelems <= 0) throw UsageError(where + ": no elements");
  c.bytes = static_cast<std::uint64_t>(nelems * moved->per_element) * elem;
  const bool per_rank = *kind == CollectiveKind::all_gather ||
                        *kind == CollectiveKind::reduce_scatter ||
                        *kind == CollectiveKind::all_to_all;
  if (per_rank && static_cast<std::uint64_t>(nelems) % n != 0)
    throw UsageError(where + ": " + std::to_string(nelems) + " elements do not split evenly over " +
                     std::to_string(n) + " ranks");
  // torch records a broadcast's root, and a send's or recv's peer, as a group rank in "Rank"; torch
  // 2.4+ also writes the peer's global rank ("Dst Rank" / "Src Rank"), preferred here.
  if (*kind == CollectiveKind::broadcast)
    c.root = t.rank_field >= 0 && static_cast<std::size_t>(t.rank_field) < n ? t.rank_field : 0;
  if (*kind == CollectiveKind::send || *kind == CollectiveKind::recv) {
    const auto at = std::find(sorted.begin(), sorted.end(), t.peer);
    if (at != sorted.end())
      c.peer = static_cast<int>(at - sorted.begin());
    else if (t.rank_field >= 0 && static_cast<std::size_t>(t.rank_field) < n)
      c.peer = t.rank_field;
    else
      throw UsageError(where + ": no peer ('" + (*kind == CollectiveKind::send ? "Dst" : "Src") +
                       " Rank' or 'Rank') of its group " + rank_text(t.ranks));
  }
  return c;
}

}  // namespace

TracedGroup traced_group(const std::vector<int>& ranks, int world, const std::string& where) {
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  const int n = static_cast<int>(sorted.size());
  if (n == world && n > 0 && sorted.front() == 0 && sorted.back() == world - 1)
    return {GroupKind::world, 0, 1};
  const int stride = n >= 2 ? sorted[1] - sorted[0] : 1;
  bool arithmetic = n >= 1 && stride >= 1 && sorted.front() >= 0 && sorted.back() < world;
  for (int i = 1; arithmetic && i < n; ++i)
    arithmetic =
        sorted[static_cast<std::size_t>(i)] - sorted[static_cast<std::size_t>(i - 1)] == stride;
  // Strided groups tile the world: blocks of n x stride ranks, the group starting in the block's
  // first `stride` ranks (workloads/plan/parallel/mesh.hpp strided_group()).
  const int block = n * stride;
  if (arithmetic && block <= world && world % block == 0 && sorted.front() % block < stride)
    return {GroupKind::strided, n, stride};
  throw UsageError(where + ": process group " + rank_text(ranks) + " of a world of " +
                   std::to_string(world) +
                   " ranks is neither the world nor a group of evenly spaced ranks that tiles it "
                   "(a device mesh's): replay has no such group; retrace with mesh-shaped groups");
}

std::vector<CollectiveOp> traced_collectives(const GpuWork& kernel, int world,
                                             const std::string& path) {
  char ts[48];
  std::snprintf(ts, sizeof ts, " at ts %.3f us", kernel.start_us);
  std::vector<CollectiveOp> ops;
  const std::vector<TraceCollective> one = {*kernel.collective};
  for (const TraceCollective& t : kernel.parts.empty() ? one : kernel.parts) {
    const std::string where = "trace '" + path + "': collective '" + t.name + "' (kernel '" +
                              kernel.label + "'" + ts + ")";
    if (t.name == "coalesced")
      throw UsageError(where + ": a coalesced launch without its calls' record_param_comms " +
                       "events: profile with record_shapes=True and keep the cpu_op events");
    ops.push_back(one_collective(t, world, where));
  }
  return ops;
}

}  // namespace collreplay::trace
