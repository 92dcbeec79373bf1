// The layouts `advise` and the fabric answer weigh for a world of nodes x GPUs per node: ddp,
// ddp+do (DDP with Megatron's distributed optimizer), fsdp, hsdp, tensor parallel at 2, 4 and 8
// (with fsdp, hsdp, ddp or ddp+do across the rest, or alone: `tp4` when it is the whole world)
// and expert parallel at 2, 4 and 8 with fsdp. Each is a workload request for the
// schedule builder, or the reason it does not apply to this model and world.
#pragma once
#include <string>
#include <vector>

#include "workloads/model/model.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay::project {

struct Layout {
  std::string name;         // "fsdp", "hsdp", "tp2+fsdp", "tp4", "ddp", "tp2+ddp+do", "ep8+fsdp"
  WorkloadRequest request;  // `base` with this layout's plan, sharding, tp, ep and world
  std::string refused;      // why the layout does not apply ("" when it does)
};

// The layout a request runs, in advise's words: "fsdp", "hsdp", "ddp", "tp2+ddp+do", "tp2+fsdp",
// "tp4", "ep8+fsdp"; and with "+recompute" when it checkpoints activations (layout_label).
std::string layout_name(const WorkloadRequest& request);
std::string layout_label(const WorkloadRequest& request);

// `base` carries the model, batch shape, dtypes and the FSDP implementation (fsdp1 or fsdp2).
std::vector<Layout> candidate_layouts(const WorkloadRequest& base, const ModelConfig& model,
                                      int nodes);

}  // namespace collreplay::project
