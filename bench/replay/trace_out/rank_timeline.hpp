// One rank's replayed step as Chrome trace events (the Trace Event Format: "X" complete events,
// ts and dur in microseconds from the step's start; "M" metadata naming the tracks), laid out as
// torch.profiler lays out a CUDA trace, so that Perfetto and chrome://tracing show it beside the
// user's own trace and the trace importer reads it back:
//   pid = the rank ("rank N");
//   tid 1 "host": the launches (cuda_runtime cudaLaunchKernel) of forward and optimizer ops and
//     the host time the schedule spends before them; tid 2 "host (autograd)": backward's, as
//     autograd's thread issues them (the importer tells backward by that thread);
//   tid 3 "phases": forward / backward / recompute / optimizer as spans of GPU time;
//   tid 7 "compute stream": each compute op's kernels ("kernel" events: a GEMM or a kernel slice
//     each, with its label), sharing the op's measured time in proportion to their modeled time;
//   tid 20+ "comm stream (GROUP)": one per process group, each collective an NCCL kernel with
//     torch's fields (torch_comm_args.hpp) and its kind, bytes, dtype and group;
//   each kernel tied to its launch by "correlation" and an "ac2g" flow arrow; each GEMM also as
//     the aten::mm / aten::bmm op (cpu_op, "Input Dims") that record_shapes writes, so that
//     FLOPs counted from traced shapes count the replayed GEMMs back;
//   "ProfilerStep#1" around the step and "Optimizer.step#..." around the optimizer's launches.
// The host timeline is the schedule's: each launch after the host time the replay paced before
// it (launch_order.hpp); a replay enqueues no later than that. Pure: no MPI, no files.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/compute/compute_model.hpp"
#include "workloads/schedule.hpp"

namespace collreplay {

inline constexpr int kHostTid = 1, kAutogradTid = 2, kPhaseTid = 3, kComputeStreamTid = 7,
                     kFirstCommStreamTid = 20;
// Correlation ids of rank r start at r x this, so that flow ids are unique in a file of ranks.
inline constexpr long long kCorrelationsPerRank = 1000000000LL;

struct RankStep {
  int rank = 0;
  const Schedule* schedule = nullptr;
  // Per op, from the start of this rank's step to the op's start and end on its stream, in ms
  // (the overlapped pass's median step: PassResult::op_start_ms / op_end_ms).
  std::vector<double> op_start_ms, op_end_ms;
  std::vector<int> node_colors;  // by world rank (GroupKind::node's members); empty: the mesh's
  double compute_scale = 1;      // as the replay stretched its compute
  ComputeModel model{kGpuPeaks[1], kDefaultModelMfu};  // apportions a compute op's time among
                                                       // its kernels (any GPU will do: shares)
};

struct RankTrace {
  nlohmann::json events = nlohmann::json::array();
  // distributedInfo.pg_config: this rank's process groups (pg_name, pg_desc, pg_size, ranks).
  nlohmann::json process_groups = nlohmann::json::array();
};

RankTrace rank_trace(const RankStep& step);

}  // namespace collreplay
