// A replayed collective as torch.profiler records an NCCL kernel (record_shapes): the kernel's
// name, "Collective name", "In msg nelems" / "Out msg nelems", "dtype", "Group size",
// "Process Group Ranks", split sizes. Written so that the trace importer (workloads/trace/) reads
// a --trace-out file back as it reads the user's own torch trace: same collectives, same sizes.
// Pure: no MPI, no files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/schedule.hpp"

namespace collreplay {

// torch's name of an element type (c10::ScalarType): "BFloat16", "Half", "Float", "Float8_e4m3fn".
std::string torch_dtype_name(DType dtype);

// The c10d call torch names the collective after: "_allgather_base", "_reduce_scatter_base",
// "allreduce", "all_to_all", "all_to_allv", "broadcast", "send", "recv", "send_recv".
std::string torch_collective_name(CollectiveKind kind);

// The NCCL kernel's name as the profiler shows it, without the algorithm and protocol (the
// replay does not know which NCCL picked): "ncclDevKernel_AllGather",
// "ncclDevKernel_ReduceScatter_Sum_bf16", "ncclDevKernel_SendRecv", ...
std::string nccl_kernel_name(const CollectiveOp& collective);

// World ranks of `rank`'s group for the op, in group order. `node_colors` (by world rank, equal
// on one host) places GroupKind::node as the replay split it; empty: the mesh's nodes.
std::vector<int> group_members(const Schedule& schedule, const CollectiveOp& collective, int rank,
                               const std::vector<int>& node_colors);

// "[0, 1, 2, 3]", as torch writes "Process Group Ranks".
std::string torch_rank_list(const std::vector<std::int64_t>& values);

// The kernel event's args: torch's fields (above) and the replay's own: kind, bytes, group
// (group_label), op, phase, unit. `members` from group_members.
nlohmann::json collective_args(const ScheduleOp& op, const std::vector<int>& members);

}  // namespace collreplay
