// What real multi-node steps pay beyond the collectives' bandwidth and latency: the terms that an
// observed throughput table (bench/project/observed) fits per fabric, and the one place that turns
// a schedule's op times into an overlapped step with them. Default StepTerms hold only the
// mechanisms measured or read from NCCL's rules (the slowest of N ranks at the measured per-rank
// spread, NCCL's per-hop ring latency across nodes: bench/project/model/mechanisms.hpp); every
// fitted term is off.
#pragma once
#include <map>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

// Per-rank spread of the compute between two synchronising collectives (coefficient of variation
// across ranks), from the committed samples of sweeps/measured/2026-11-23/replay_nvlink.jsonl: 2x
// H200 (NCCL 2.28.3, 2026-11-23), `mpirun -np 2 build/bin/replay --model qwen2.5-7b --micro-batch 2
// --seq 2048 -c --steps 5 --transport nvlink`, each rank's compute-only time of every op (its
// median over the steps). Per decoder layer and phase (forward, recompute, backward: 84 intervals,
// each ended by a collective every rank waits for) the two ranks' times differ by d = (t0 - t1) /
// mean; E[d^2] = 2 cv^2 for two independent ranks, so cv = sqrt(mean d^2 / 2) = 0.88%. Test
// ProjectMechanisms.RankJitterIsTheCommittedReplaysPerRankSpread recomputes it from that file.
inline constexpr double kMeasuredRankJitterCv = 0.0088;

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
};

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

// The schedule's optimizer phase in ms: the sum of its ops' times (the schedule's optimizer step,
// timed by the compute source with the rest of the step).
double optimizer_phase_ms(const Schedule& schedule, const std::vector<double>& op_ms);

// The overlapped step in ms: compute slowed under overlap, then the two-stream simulation (the
// optimizer phase included: it waits for the last reduce-scatter).
double overlapped_step_ms(const Schedule& schedule, const std::vector<double>& op_ms,
                          const StepTerms& terms);

}  // namespace collreplay::project
