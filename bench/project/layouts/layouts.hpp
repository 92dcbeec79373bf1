// The layouts `advise` and the fabric answer weigh for a world of nodes x GPUs per node: ddp,
// ddp+do (DDP with Megatron's distributed optimizer), fsdp, hsdp, tensor parallel at 2, 4 and 8
// (with fsdp, hsdp, ddp or ddp+do across the rest, or alone: `tp4` when it is the whole world)
// expert parallel at 2, 4 and 8 with fsdp, and pipelines of 2, 4 and 8 stages with tp 2, 4 or 8
// inside each and fsdp or ddp across the rest (`tp4+pp8+ddp`). Each is a workload request for the
// schedule builder, or the reason it does not apply to this model and world.
#pragma once
#include <string>
#include <vector>

#include "workloads/model/model.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay::project {

struct Layout {
  // "fsdp", "hsdp", "tp2+fsdp", "tp4", "ddp", "tp2+ddp+do", "ep8+fsdp", "tp4+pp8+ddp"
  std::string name;
  WorkloadRequest request;  // `base` with this layout's plan, sharding, tp, ep, pp and world
  std::string refused;      // why the layout does not apply ("" when it does)
};

// The layout a request runs, in advise's words: "fsdp", "hsdp", "ddp", "tp2+ddp+do", "tp2+fsdp",
// "tp4", "ep8+fsdp", "tp4+pp8+ddp"; and with "+recompute" when it checkpoints activations
// (layout_label).
std::string layout_name(const WorkloadRequest& request);
std::string layout_label(const WorkloadRequest& request);

// `base` carries the model, batch shape, dtypes and the FSDP implementation (fsdp1 or fsdp2).
std::vector<Layout> candidate_layouts(const WorkloadRequest& base, const ModelConfig& model,
                                      int nodes);

}  // namespace collreplay::project
