// What real multi-node steps pay beyond the collectives' bandwidth and latency: the terms that an
// observed throughput table (bench/project/observed) fits per fabric, and the one place that turns
// a schedule's op times into an overlapped step with them. Default StepTerms hold only the
// mechanisms measured or read from NCCL's rules (the slowest of N ranks at the measured per-rank
// jitter, NCCL's per-hop ring latency across nodes: bench/project/model/mechanisms.hpp); every
// fitted term is off.
#pragma once
#include <map>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

// Per-rank jitter of one layer's compute (coefficient of variation, robust: 1.4826 x MAD / median),
// measured by `python3 sweeps/gpu/mechanisms/step_jitter.py` on 1x H200 (torch 2.11, 2026-11-26,
// bench/RESULTS.md issue 37): a Llama-3.1-8B layer's GEMMs at 16,384 tokens, 32.2 ms, cv 1.14% on
// the GPU (CUDA events) and 1.26% from the host (launch to synchronize). The GPU's figure is
// taken: ranks meet inside NCCL's kernels, on the GPU, while a training step's host runs ahead
// (the host's figure adds the wake-up from a synchronize that a step does not do per layer).
inline constexpr double kMeasuredRankJitterCv = 0.0114;

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
  // Every collective waits for the last of the step's ranks: each compute op takes
  // 1 + cv x E[max of world standard normals] of its time (slowest_rank_factor, mechanisms.hpp),
  // cv being one rank's jitter between two synchronising collectives. Measured, not fitted.
  double rank_jitter_cv = kMeasuredRankJitterCv;
  // NCCL's tuner latency per ring hop across nodes (src/graph/tuning.cc: the NET hop, the network
  // post overhead on the intra-node hops of a multi-node ring, per the protocol it picks for the
  // size) as the floor of the fabric's per-step latencies for collectives that cross nodes.
  bool nccl_hop_latency = true;
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

// The factor on every compute op of a step over `world` ranks: compute_scale x the slowest of
// `world` ranks at rank_jitter_cv (1 at one rank).
double compute_factor(const StepTerms& terms, int world, NormalMaxima& maxima);

// One collective's time in ms under the terms: the cost model (the tuner's fastest algorithm,
// reported through `algo`) at the slowest link's bandwidth and NCCL's hop latencies when it crosses
// nodes, plus the overhead when it crosses nodes.
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
