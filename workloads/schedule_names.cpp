#include "workloads/schedule.hpp"

namespace collreplay {

std::string_view collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_gather: return "all_gather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
    case CollectiveKind::all_to_all: return "all_to_all";
    case CollectiveKind::all_to_allv: return "all_to_allv";
    case CollectiveKind::all_reduce: return "all_reduce";
  }
  return "?";
}

std::string_view group_kind_name(GroupKind group) {
  switch (group) {
    case GroupKind::world: return "world";
    case GroupKind::node: return "node";
    case GroupKind::expert: return "expert";
    case GroupKind::data_parallel: return "data_parallel";
    case GroupKind::tp: return "tp";
    case GroupKind::shard: return "shard";
    case GroupKind::replicate: return "replicate";
    case GroupKind::expert_node: return "expert_node";
    case GroupKind::expert_rail: return "expert_rail";
  }
  return "?";
}

}  // namespace collreplay
