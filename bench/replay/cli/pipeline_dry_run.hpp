// What `replay --dry-run` prints for a pipeline (--pp above 1): each stage's ranks, decoder
// layers and model-level modules, its sends and receives per micro-batch (from the stages' own
// schedules), the order this rank runs, and the bubble that order leaves: every stage's schedule
// run together (workloads/plan/pipeline/pipeline_sim.hpp) with each compute op taking time in
// proportion to its GEMM FLOPs and communication free, so what is idle is what the order and the
// stages' sizes cost, nothing else.
#pragma once
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "workloads/plan/request.hpp"

namespace collreplay {

void print_pipeline(const WorkloadRequest& request, std::ostream& out);
nlohmann::ordered_json pipeline_json(const WorkloadRequest& request);

}  // namespace collreplay
