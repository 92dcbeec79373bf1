#include <string>

#include "workloads/schedule.hpp"

namespace collreplay {

std::string_view stream_kind_name(StreamKind stream) {
  return stream == StreamKind::comm ? "comm" : "compute";
}

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::recompute: return "recompute";
    case Phase::optimizer: return "optimizer";
  }
  return "?";
}

std::string_view kernel_kind_name(KernelKind kind) {
  switch (kind) {
    case KernelKind::vector: return "vector";
    case KernelKind::generic: return "generic";
    case KernelKind::reduce: return "reduce";
    case KernelKind::copy: return "copy";
    case KernelKind::sync: return "sync";
    case KernelKind::timed: return "timed";
    case KernelKind::multi_tensor: return "multi_tensor";
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
    case GroupKind::strided: return "strided";
  }
  return "?";
}

std::string group_label(const CollectiveOp& c) {
  if (c.group != GroupKind::strided) return std::string(group_kind_name(c.group));
  return "strided(" + std::to_string(c.group_size) + "," + std::to_string(c.group_stride) + ")";
}

}  // namespace collreplay
