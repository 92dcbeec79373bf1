// Ops of one phase (forward, or backward with its recompute) before they get schedule indices:
// what the schedule builder and the plan pieces (tensor parallel, HSDP, DDP, all-to-all) append
// to. Indices in `after`, `needed_by` and `hides` are positions in the phase's compute list
// (-1: none / phase start).
#pragma once
#include <string>
#include <vector>

#include "common/sizes.hpp"
#include "workloads/model/work.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

struct CommItem {
  std::string name, unit;
  int layer = -1;
  Phase phase = Phase::forward;
  CollectiveOp op;
  int after = -1;      // issued once this compute item is done
  int needed_by = -1;  // this compute item waits for it
  int hides = -1;      // the compute item it is meant to overlap
  // The name of an earlier comm item of the phase this one waits for, "" for none: HSDP's
  // all-reduce runs on its own stream after its reduce-scatter (FSDP2 foreach_reduce:
  // all_reduce_stream.wait_stream(reduce_scatter_stream)).
  std::string after_comm;
  // The host reads the result back before it issues anything more (the routing counts' .tolist()
  // for the all-to-all's split sizes): the compute stream waits for it and the host for the
  // compute stream, as torch's current stream waits on the collective and .tolist() syncs it.
  bool host_reads_back = false;
  // At one issue point: critical path (MoE, TP) 0, all-gather 1, reduce-scatter 2, its
  // all-reduce across replicas 3.
  int priority = 0;
};

struct ComputeItem {
  std::string name, unit;
  int layer = -1;
  Phase phase = Phase::forward;
  Work work;  // GEMMs and the kernels between them
};

struct PhaseOps {
  std::vector<ComputeItem> compute;
  std::vector<CommItem> comm;
};

inline std::uint64_t times(std::uint64_t a, std::uint64_t b) {
  return checked_mul(a, b, "collective bytes");
}

inline const char* phase_tag(Phase phase) {
  return phase == Phase::forward ? "fwd" : phase == Phase::recompute ? "recompute" : "bwd";
}

}  // namespace collreplay
