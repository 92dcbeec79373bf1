// Projects one training step at a node count: the workloads' schedule at that world size (its
// real per-unit bytes and GEMM FLOPs), each collective timed by the cost model, each compute op by
// the compute source; then per-unit headroom (bench/headroom.hpp), the median decoder layer with a
// band from the fit's residuals, the overlapped step, tokens/s and MFU.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/project/compute_source.hpp"
#include "bench/project/memory/gpu_memory.hpp"
#include "bench/project/memory/memory_model.hpp"
#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/step_terms.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay::project {

// What a projected row is checked against: the model's memory per GPU under the request's layout
// at the GPU's usable memory.
struct MemoryLimit {
  ModelConfig model;
  MemoryBudget budget;
  OptimizerStates states = OptimizerStates::plan;
};

struct ProjectionInputs {
  WorkloadRequest request;  // world is set per node count
  FabricModel model;
  double ratio_lo = 1, ratio_hi = 1;  // comm-time band (fit residuals)
  ComputeSource compute;
  // What steps pay beyond bandwidth: the nominal mechanisms (the slowest of N ranks, NCCL's hop
  // latencies: step_terms.hpp) and, from observed throughput, the fitted terms (else off).
  StepTerms terms;
  // request.trace: the FLOPs of the traced step, counted from its shapes (TraceImport::
  // compute_flops); nullopt without shapes: TFLOP/s and MFU are unknown.
  std::optional<double> traced_flops;
  // A trace per rank: how many ranks to project, the step being the slowest's; 1 otherwise.
  int traced_ranks = 1;
  // Checked per row when set (a catalog model); a trace has no model to size.
  std::optional<MemoryLimit> memory;
  // What a row is read for. Attribution (exposure by group, on the critical path, across nodes)
  // costs a step simulation per group: `project`'s tables and tipping point read it; a ranking of
  // layouts by tokens/s does not. A step that does not fit is not simulated when the ranking says
  // so (its memory says why; its step reads 0).
  bool attribute_exposure = true;
  bool simulate_unfit = true;
  // A pipeline's other stages' schedules, by pipeline rank, when the caller projects the same
  // request on several fabrics: built by the first projection, read by the next (null: built
  // each time). Not owned.
  std::map<int, Schedule>* pipeline_stages = nullptr;
};

struct UnitProjection {
  std::string unit;
  int layer = -1;
  double comm_ms = 0, compute_ms = 0, headroom_ms = 0;
};

struct ProjectionRow {
  int nodes = 1, world = 1;
  std::vector<UnitProjection> units;
  int median_layer = -1;
  double layer_comm_ms = 0, layer_compute_ms = 0;
  double headroom_ms = 0, headroom_lo_ms = 0, headroom_hi_ms = 0;
  double compute_step_ms = 0, comm_step_ms = 0;
  double step_ms = 0, exposed_comm_ms = 0, exposed_lo_ms = 0, exposed_hi_ms = 0;
  double tokens_per_s = 0;          // the whole job
  double tokens_per_s_per_gpu = 0;  // tokens_per_s / world
  // Tokens/s per GPU over the run's first row's, and the interval on it and on tokens/s per GPU
  // (bench/project/interval/scaling_interval.hpp: apply_intervals sets them; until then the
  // ratio is 1 and the interval empty).
  double per_gpu_vs_first = 1, per_gpu_vs_first_lo = 1, per_gpu_vs_first_hi = 1;
  int first_nodes = 0;  // the first row's node count: what per_gpu_vs_first is against
  double tokens_per_s_per_gpu_lo = 0, tokens_per_s_per_gpu_hi = 0;
  double optimizer_ms = 0;  // the schedule's optimizer phase (its compute ops), ms per step
  std::optional<double> tflops_per_gpu;  // FLOPs per rank / step; unknown for a trace without shapes
  std::optional<double> mfu;
  std::map<std::string, std::string> algorithms;  // collective kind -> algorithm of its largest op
  // Per process group (its stream): how much longer the step is than with that group's
  // collectives free. What each group exposes; they need not add up to exposed_comm_ms.
  std::map<std::string, double> exposed_by_group_ms;
  // The same for the decoder layers' collectives that nothing can hide (hides_behind -1: TP's
  // all-reduces without --async-tp, MoE dispatch and combine): exposed by design.
  double critical_exposed_ms = 0;
  // Exposure the fabric causes: the step less the step with every collective that crosses nodes
  // free; and the same for those of them on the critical path. What the collectives inside a node
  // expose (the step with the crossing ones free, less compute) is the layout's own cost, the
  // same on any fabric (tipping/tipping_point.hpp).
  double fabric_exposed_ms = 0, critical_fabric_exposed_ms = 0, layout_exposed_ms = 0;
  bool median_layer_crosses_nodes = false;  // a collective of the median layer spans nodes
  std::optional<MemoryPerGpu> memory;  // when checked
  bool fits = true;                    // false: the row's figures describe a step that cannot run
  bool memory_tight = false;  // fits only at the low end of the allocator's measured slack
  // A pipeline (--pp): how much longer the stages run together than the slowest stage alone
  // (bench/project/pipeline/): the bubble and the sends and receives the order waits for.
  std::optional<double> pipeline_wait_ms;
};

ProjectionRow project_nodes(const ProjectionInputs& inputs, int nodes);
// The same for a schedule already built at world = nodes x gpus_per_node (a fit projects one
// schedule under many parameter sets). A pipeline's rank: every stage projected and run together
// (bench/project/pipeline/pipeline_projection.hpp).
ProjectionRow project_schedule(const ProjectionInputs& inputs, const Schedule& schedule, int nodes,
                               NormalMaxima& maxima);
// One rank's schedule alone (its own streams and dependencies); `detail`, when given, gets each
// op's time (compute at the modelled speed and the slowest rank's, comm by the cost model) and
// whether its group crosses nodes, and the row's exposure by group is left to the caller (who
// runs the step with other ranks).
struct RankOpTimes {
  std::vector<double> op_ms;
  std::vector<bool> crosses_nodes;
};
ProjectionRow project_rank(const ProjectionInputs& inputs, const Schedule& schedule, int nodes,
                           NormalMaxima& maxima, RankOpTimes* detail = nullptr);
// The median decoder layer of row.units (by headroom) with its band.
void set_median_layer(ProjectionRow& row, double ratio_lo, double ratio_hi);

}  // namespace collreplay::project
