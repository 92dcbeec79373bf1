// What real multi-node steps pay beyond the collectives' bandwidth and latency: the terms that an
// observed throughput table (bench/project/observed) fits per fabric, and the one place that turns
// a schedule's op times into an overlapped step with them. With default StepTerms every term is
// off and the step is the plain two-stream simulation (step_sim.hpp).
#pragma once
#include <map>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

struct StepTerms {
  // Compute ops take this many times the compute source's time (1 / scale of its MFU).
  double compute_scale = 1;
  // Fixed cost of every collective whose group crosses nodes, on the comm stream (it hides when
  // the unit's compute is longer, as the bytes do).
  double inter_overhead_ms = 0;
  // While NCCL kernels overlap a compute op, the compute runs at (1 - this) of its speed: they hold
  // SMs and memory bandwidth. In [0, 1).
  double compute_slowdown = 0;
  // Spread of the inter-node links' speeds (sigma of their log): a ring moves at its slowest link,
  // so a ring over N nodes gets bandwidth x exp(-spread x E[max of N standard normals]).
  double link_spread = 0;
  // The optimizer step after the last reduce-scatter: AdamW's traffic over this rank's shard at the
  // GPU's memory bandwidth (GB/s); 0 = not modelled.
  double optimizer_hbm_gbyte_s = 0;
};

// AdamW in fp32 reads parameter, gradient and both moments and writes parameter and moments back.
inline constexpr double kAdamWBytesPerParam = 4.0 * 4 + 3 * 4;

// E[max of n independent standard normals], memoised: a numeric integral, too slow to redo for
// every op of every step a fit evaluates.
class NormalMaxima {
 public:
  double expected_max(int n);

 private:
  std::map<int, double> known_;
};

// The inter tier's bandwidth factor for a ring over `nodes` nodes: exp(-spread x E[max]).
double slowest_link_factor(int nodes, double spread, NormalMaxima& maxima);

// One collective's time in ms under the terms: the cost model (the tuner's fastest algorithm,
// reported through `algo`) at the slowest link's bandwidth, plus the overhead when it crosses nodes.
double collective_ms(CollKind kind, double bytes, const GroupSpan& span, const FabricModel& model,
                     const StepTerms& terms, NormalMaxima& maxima, Algo* algo = nullptr);

// `op_ms` with each compute op stretched by the comm that hides behind it (ops whose hides_behind
// names it): extra = slowdown x overlap, the overlap being at most the stretched compute itself.
std::vector<double> slowed_compute_ms(const Schedule& schedule, std::vector<double> op_ms,
                                      double slowdown);

// The optimizer step in ms for this rank's shard (`param_bytes`: bytes per parameter element of
// the schedule's shards); 0 when not modelled or when the schedule times an optimizer op itself.
double optimizer_step_ms(const Schedule& schedule, double param_bytes, const StepTerms& terms);

// The overlapped step in ms: compute slowed under overlap, the two-stream simulation, then the
// optimizer step (it waits for the last reduce-scatter).
double overlapped_step_ms(const Schedule& schedule, const std::vector<double>& op_ms,
                          const StepTerms& terms, double optimizer_ms);

}  // namespace collreplay::project
