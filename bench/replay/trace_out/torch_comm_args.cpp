#include "bench/replay/trace_out/torch_comm_args.hpp"

#include <algorithm>
#include <numeric>

#include "collectives/ops/op_registry.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

// NCCL's type suffix in a reducing kernel's name (ncclDevKernel_AllReduce_Sum_bf16).
const char* nccl_type_suffix(DType dtype) {
  switch (dtype) {
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::f32: return "f32";
    case DType::fp8: return "f8e4m3";
    case DType::fp8_e5m2: return "f8e5m2";
    case DType::f64: return "f64";
    case DType::i8: return "i8";
    case DType::u8: return "u8";
    case DType::i32: return "i32";
    case DType::u32: return "u32";
    case DType::i64: return "i64";
    case DType::u64: return "u64";
  }
  return "bf16";
}

std::vector<std::int64_t> as_int64(const std::vector<std::uint64_t>& values) {
  return {values.begin(), values.end()};
}

std::int64_t total(const std::vector<std::uint64_t>& values) {
  return static_cast<std::int64_t>(std::accumulate(values.begin(), values.end(), std::uint64_t{0}));
}

}  // namespace

std::string torch_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::bf16: return "BFloat16";
    case DType::f16: return "Half";
    case DType::f32: return "Float";
    case DType::fp8: return "Float8_e4m3fn";
    case DType::fp8_e5m2: return "Float8_e5m2";
    case DType::f64: return "Double";
    case DType::i8: return "Char";
    case DType::u8: return "Byte";
    case DType::i32: return "Int";
    case DType::u32: return "UInt32";
    case DType::i64: return "Long";
    case DType::u64: return "UInt64";
  }
  return "BFloat16";
}

std::string torch_collective_name(CollectiveKind kind) {
  return std::string(op_spec(kind).torch_name());
}

std::string nccl_kernel_name(const CollectiveOp& c) {
  const OpSpec& spec = op_spec(c.kind);
  std::string name(spec.nccl_kernel());
  if (spec.reduction() == "sum") name += std::string("_Sum_") + nccl_type_suffix(c.dtype);
  return name;
}

std::vector<int> group_members(const Schedule& s, const CollectiveOp& c, int rank,
                               const std::vector<int>& node_colors) {
  std::vector<int> members;
  if (c.group == GroupKind::strided) {
    const StridedGroup g = strided_group(c);
    for (int i = 0; i < g.size; ++i) members.push_back(g.member(rank, i));
    return members;
  }
  const MeshLayout mesh = mesh_layout(s);
  const bool by_host = c.group == GroupKind::node &&
                       node_colors.size() == static_cast<std::size_t>(s.world);
  auto color = [&](int r) {
    return by_host ? node_colors[static_cast<std::size_t>(r)] : mesh_group_color(mesh, c.group, r);
  };
  for (int r = 0; r < s.world; ++r)
    if (color(r) == color(rank)) members.push_back(r);
  return members;
}

std::string torch_rank_list(const std::vector<std::int64_t>& values) {
  std::string text;
  for (std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return "[" + text + "]";
}

nlohmann::json collective_args(const ScheduleOp& op, const std::vector<int>& members) {
  const CollectiveOp& c = op.collective();
  const auto n = static_cast<std::int64_t>(std::max<std::size_t>(members.size(), 1));
  const auto elements = static_cast<std::int64_t>(c.bytes / dtype_size_bytes(c.dtype));
  // torch's counts: all_gather's input is one rank's part, reduce_scatter's output likewise;
  // all_to_allv's are the sums of its per-peer splits.
  std::int64_t in = elements, out = elements;
  if (c.kind == CollectiveKind::all_gather) in = elements / n;
  if (c.kind == CollectiveKind::reduce_scatter) out = elements / n;
  std::string in_split = "[]", out_split = "[]";
  if (c.kind == CollectiveKind::all_to_allv) {
    in = total(c.send_counts);
    out = total(c.recv_counts);
    // In elements, so that rows of any width read the same: in_nelems is their sum.
    in_split = torch_rank_list(as_int64(c.send_counts));
    out_split = torch_rank_list(as_int64(c.recv_counts));
  }
  const std::string label = group_label(c);
  nlohmann::json args = {{"Collective name", torch_collective_name(c.kind)},
                         {"In msg nelems", in},
                         {"Out msg nelems", out},
                         {"Group size", n},
                         {"dtype", torch_dtype_name(c.dtype)},
                         {"In split size", in_split},
                         {"Out split size", out_split},
                         {"Process Group Name", label},
                         {"Process Group Ranks",
                          torch_rank_list(std::vector<std::int64_t>(members.begin(), members.end()))},
                         {"kind", std::string(collective_kind_name(c.kind))},
                         {"bytes", c.bytes},
                         {"group", label},
                         {"op", op.name},
                         {"phase", std::string(phase_name(op.phase))},
                         {"unit", op.unit}};
  // torch's "Rank": a broadcast's root, a send's or recv's peer, as a group rank.
  if (c.kind == CollectiveKind::broadcast) {
    args["root"] = c.root;
    args["Rank"] = c.root;
  }
  if ((c.kind == CollectiveKind::send || c.kind == CollectiveKind::recv) && c.peer >= 0 &&
      c.peer < static_cast<int>(members.size())) {
    args["peer"] = c.peer;
    args["Rank"] = c.peer;
    args[c.kind == CollectiveKind::send ? "Dst Rank" : "Src Rank"] =
        members[static_cast<std::size_t>(c.peer)];
  }
  return args;
}

}  // namespace collreplay
