#include "collectives/reduce_op.hpp"

namespace collreplay {

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::avg: return "avg";
  }
  return "?";
}

std::optional<ReduceOp> reduce_op_from_name(std::string_view name) {
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::avg})
    if (reduce_op_name(op) == name) return op;
  return std::nullopt;
}

}  // namespace collreplay
