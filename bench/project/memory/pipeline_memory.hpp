// One pipeline stage's memory per GPU (a layout fits when every stage does): its own units'
// shards, gradients and optimizer states (memory_model.hpp), the activations of the micro-batches
// its order holds at once (each forward saves until its backward: 1F1B's first stage up to pp of
// them, GPipe's every stage all M; interleaved, counted over the rank's chunks as the order
// runs), the receive buffers torch's stages allocate up front (one per micro-batch and direction:
// _prepare_forward_infra / _prepare_backward_infra; gpipe and 1f1b), and under FSDP2 every unit
// of the stage gathered with its unsharded gradient accumulating, as pipelining keeps them
// between micro-batches (workloads/plan/pipeline/stage_pieces.hpp).
#pragma once
#include "bench/project/memory/memory_model.hpp"

namespace collreplay::project {

// `stage`: the schedule of a rank of the stage (its units, its P2P messages).
MemoryPerGpu pipeline_memory_per_gpu(const Schedule& stage, const ModelConfig& model,
                                     const WorkloadRequest& request, OptimizerStates states);

}  // namespace collreplay::project
