// One observed run made ready to be timed many times over: its schedule (the command line's plan
// at the row's model, batch shape and world), each compute op's time from the compute source, and
// its collectives grouped by what they cost (a step holds a few distinct sizes, each many times).
// A fit evaluates every row under thousands of parameter sets; building the schedule and timing
// its compute once is what makes that cheap.
#pragma once
#include <vector>

#include "bench/project/compute_source.hpp"
#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/step_terms.hpp"
#include "bench/project/observed/observed_table.hpp"
#include "workloads/plan/request.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

struct ObservedCase {
  ObservedRow row;
  WorkloadRequest request;  // the row's workload (world = nodes x gpus_per_node)
  Schedule schedule;
  std::vector<double> compute_ms;  // per op at compute scale 1 (0 for collectives)
  double compute_step_ms = 0;      // their sum
  double flops = 0;                // the schedule's GEMM FLOPs per rank and step
  struct Collectives {
    CollKind kind = CollKind::all_gather;
    double bytes = 0;
    GroupSpan span;
    std::vector<std::size_t> ops;
  };
  std::vector<Collectives> collectives;
  double observed_step_ms = 0;  // the row's step: tokens per rank and step / tokens/s per GPU
};

// UsageError (one line) when the row's workload cannot be built.
ObservedCase prepare_case(const ObservedRow& row, const WorkloadRequest& plan,
                          const ComputeSource& compute);

// The step the model gives the case: compute scaled, collectives at the fabric and terms,
// overlapped, then the optimizer step.
double case_step_ms(const ObservedCase& c, const FabricModel& model, const StepTerms& terms,
                    NormalMaxima& maxima);

// Tokens per second per GPU at a step time.
double tokens_per_s_per_gpu(const ObservedCase& c, double step_ms);

}  // namespace collreplay::project
