// The fields torch writes for one NCCL call (on its kernel and on its record_param_comms host
// event), read into a TraceCollective. Field names as torch/csrc/profiler/util.cpp (saveNcclMeta)
// writes them from torch 2.4 to 2.11: "Collective name", "dtype", "In msg nelems",
// "Out msg nelems", "In split size", "Out split size", "Group size", "Global rank start",
// "Global rank stride" (written only for an arithmetic group), "Process Group Name",
// "Process Group Ranks" (cut to 30 ranks with ", ...]"), "Rank", "Src Rank" / "Dst Rank"
// (recv / send, global ranks). Numbers come as JSON numbers or, in some versions, as strings.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/trace/trace_events.hpp"

namespace collreplay::trace {

// distributedInfo.pg_config: process group name -> its global ranks.
using ProcessGroups = std::map<std::string, std::vector<int>>;

// UsageError "<where>: ..." naming the missing or malformed field. The group's ranks: "Process
// Group Ranks" when whole, else the named group of distributedInfo, else "Global rank start" and
// "Global rank stride" with "Group size", else the world when "Group size" is the world's.
TraceCollective comm_fields(const nlohmann::json& args, const std::string& where,
                            const ProcessGroups& groups, int world);

// The collective name torch gives a call that only groups others (batch_isend_irecv's
// "coalesced", "allreduce_coalesced", "all_gather_into_tensor_coalesced", ...).
bool is_coalesced_name(const std::string& name);

}  // namespace collreplay::trace
