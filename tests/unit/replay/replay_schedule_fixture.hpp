// A hand-built two-unit FSDP-like schedule for headroom and executor tests:
//   0 ag.u0 (exposed)   1 fwd.u0 (after 0)   2 ag.u1 hides behind 1
//   3 fwd.u1 (after 1, 2)   4 bwd.u1 (after 3)   5 rs.u1 hides behind 6 (after 4)
//   6 bwd.u0 (after 4)   7 rs.u0 exposed (after 6)
#pragma once
#include "workloads/schedule.hpp"

namespace collreplay::testing {

inline ScheduleOp comm_op(const std::string& name, const std::string& unit, CollectiveKind kind,
                          std::uint64_t bytes, std::vector<int> deps, int hides_behind) {
  ScheduleOp op;
  op.name = name;
  op.unit = unit;
  op.stream = StreamKind::comm;
  op.deps = std::move(deps);
  op.hides_behind = hides_behind;
  CollectiveOp c;
  c.kind = kind;
  c.bytes = bytes;
  op.body = c;
  return op;
}

inline ScheduleOp compute_op(const std::string& name, const std::string& unit, std::int64_t m,
                             std::vector<int> deps) {
  ScheduleOp op;
  op.name = name;
  op.unit = unit;
  op.stream = StreamKind::compute;
  op.deps = std::move(deps);
  ComputeOp c;
  c.gemms.push_back({m, 256, 256, 1, name});
  op.body = c;
  return op;
}

inline Schedule two_unit_schedule(std::uint64_t comm_bytes, std::int64_t gemm_m) {
  Schedule s;
  s.model = "test";
  s.world = 1;
  s.tokens_per_step = 128;
  s.ops = {
      comm_op("ag.u0", "u0", CollectiveKind::all_gather, comm_bytes, {}, -1),
      compute_op("fwd.u0", "u0", gemm_m, {0}),
      comm_op("ag.u1", "u1", CollectiveKind::all_gather, comm_bytes, {}, 1),
      compute_op("fwd.u1", "u1", gemm_m, {1, 2}),
      compute_op("bwd.u1", "u1", gemm_m, {3}),
      comm_op("rs.u1", "u1", CollectiveKind::reduce_scatter, comm_bytes, {4}, 6),
      compute_op("bwd.u0", "u0", gemm_m, {4}),
      comm_op("rs.u0", "u0", CollectiveKind::reduce_scatter, comm_bytes, {6}, -1),
  };
  return s;
}

}  // namespace collreplay::testing
