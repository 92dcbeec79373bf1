// The order one pipeline rank runs its step in, as torch.distributed.pipelining runs it
// (torch/distributed/pipelining/schedules.py): compute actions (a micro-batch's forward or
// backward on one of the rank's stages), the sends and receives between stages grouped into the
// batch_isend_irecv calls torch makes, and which of them the compute stream waits for
// (Work.wait() on an NCCL work makes the current stream wait).
//   gpipe: ScheduleGPipe: every forward (receive, compute, send), then every backward; the
//     forward sends are waited before the first backward, the backward sends before the
//     gradient reduction.
//   1f1b: Schedule1F1B: stage s runs min(M, pp - s) forwards, then backward and forward in turn,
//     each forward's send fused into one batch with the next backward's receive and each
//     backward's send with the next forward's receive; then the remaining backwards.
//   interleaved:V: Megatron-LM's forward_backward_pipelining_with_interleaving: the compute order
//     torch's ScheduleInterleaved1F1B shares (warm-up 2 x (pp-1-rank) + (V-1) x pp forwards,
//     depth first, when M is a multiple of pp), each compute step followed by one batch of its
//     sends and the next step's receives, waited before the next compute. torch 2.11 lowers the
//     same order differently (_add_send_recv: every send and receive a batch of its own, a
//     receive placed when its sender's compute is): on the pipeline group's one NCCL stream an
//     early receive there holds back the sends behind it (Qwen2.5-72B, 8 stages x 5 chunks x 16
//     micro-batches, simulated with compute by its FLOPs and free communication: 47% idle, against
//     16% with Megatron's pairing), so Megatron's pairing, the one the published interleaved runs
//     used, is what is modelled.
// The compute order of gpipe and 1f1b is Megatron-LM's as well (warm-up pp - rank - 1 forwards,
// then forward and backward in turn).
#pragma once
#include <string>
#include <vector>

#include "workloads/plan/pipeline/pipeline_plan.hpp"

namespace collreplay {

struct PipeAction {
  enum class Kind {
    forward,      // micro-batch `mb` through local stage `chunk`
    backward,     // its backward (with the recompute under activation checkpointing)
    send,         // to the next stage (activation) or the previous (gradient)
    recv,         // from the previous stage (activation) or the next (gradient)
    reduce_grad,  // the data-parallel gradient reduction of local stage `chunk` (REDUCE_GRAD)
    end,          // the step's last wait: the optimizer step follows
  };
  Kind kind = Kind::forward;
  int chunk = 0;  // local stage index: the rank's stage chunk x pp + pipeline rank
  int mb = 0;
  bool gradient = false;  // send / recv: a backward's input gradient (else a forward's output)
  int batch = -1;         // send / recv: one batch_isend_irecv call
  // Compute actions, reduce_grad and end: the sends and receives (indices of earlier actions) the
  // compute stream waits for before it.
  std::vector<int> waits;

  bool is_p2p() const { return kind == Kind::send || kind == Kind::recv; }
};

// The actions of pipeline rank `rank` (0 <= rank < plan.pp), in the order its host issues them.
std::vector<PipeAction> pipeline_actions(const PipelinePlan& plan, int rank);

// The stage (virtual stage index) a send or receive of `a` on `rank` talks to.
int peer_stage(const PipelinePlan& plan, int rank, const PipeAction& a);

// torch's action names: "2F0" (stage 2, forward, micro-batch 0), "2B0", "2SEND_F0", "2RECV_B3",
// "2REDUCE_GRAD".
std::string action_name(const PipelinePlan& plan, int rank, const PipeAction& a);

}  // namespace collreplay
