// How messages and tables name ops and passes (declared in executor.hpp).
#include <string>

#include "bench/executor/executor.hpp"
#include "common/sizes.hpp"

namespace collreplay {

// "all_gather 'ag.fwd.layers.3' (group data_parallel, 64 MiB, layer 3, unit layers.3)".
std::string describe_op(const ScheduleOp& op) {
  std::string text;
  if (op.is_collective())
    text += std::string(collective_kind_name(op.collective().kind)) + " ";
  else
    text += "compute ";
  text += "'" + op.name + "' (";
  if (op.is_collective()) {
    const CollectiveOp& c = op.collective();
    text += "group " + group_label(c) + ", ";
    if (c.kind == CollectiveKind::broadcast) text += "root " + std::to_string(c.root) + ", ";
    if (c.kind == CollectiveKind::send) text += "to group rank " + std::to_string(c.peer) + ", ";
    if (c.kind == CollectiveKind::recv) text += "from group rank " + std::to_string(c.peer) + ", ";
    text += format_bytes(c.bytes) + ", ";
  }
  if (op.layer >= 0) text += "layer " + std::to_string(op.layer) + ", ";
  return text + "unit " + op.unit + ")";
}

std::string_view pass_name(PassKind pass) {
  switch (pass) {
    case PassKind::compute_only: return "compute_only";
    case PassKind::comm_only: return "comm_only";
    case PassKind::overlapped: return "overlapped";
  }
  return "?";
}

}  // namespace collreplay
