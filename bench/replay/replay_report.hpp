// What replay reports, assembled on rank 0 from the gathered passes: the JSON Lines records
// (record = step | unit | op) and the human table on stdout.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/app/run/line_rate.hpp"
#include "bench/app/stats.hpp"
#include "bench/executor/executor.hpp"
#include "bench/replay/headroom.hpp"

namespace collreplay {

struct PassSummary {
  PassKind pass = PassKind::overlapped;
  double step_ms = 0;  // median over steps of the slowest rank's step time
  std::vector<double> step_samples_ms;  // each timed step's slowest-rank time, in order
  int steps = 0;
  double spread = 0;
  bool stable = false;
  CrossRankStat rank_step_ms;            // each rank's median step time, across ranks
  std::vector<CrossRankStat> op_ms;      // each rank's median op time, across ranks, per op
  std::vector<double> rank_step_ms_all;  // each rank's median step time, by rank
  // The slowest rank's (rank_step_ms.slowest_rank) per-op start and end in its median step,
  // relative to that step's start: the step timeline plots draw.
  std::vector<double> op_start_ms, op_end_ms;
};

struct ReplayMeasurements {
  const Schedule* schedule = nullptr;
  std::array<PassSummary, 3> passes;  // indexed by PassKind
  OpTimes op_times;                   // slowest rank's per-op medians
  // Per op, the bytes busbw counts (OpSpec::bus_bytes), the largest over ranks (all_to_allv's
  // busiest rank); 0 for compute ops. Empty: each op's spec rule for its size and group.
  std::vector<double> bus_bytes;
  StepHeadroom step;
  std::vector<OpHeadroom> op_headroom;
  std::vector<UnitHeadroom> units;
  std::vector<std::string> sanity_problems;
  double compute_scale = 1;
  std::optional<double> peak_tflops;
  std::string peak_source;
  // Unknown for a trace without shapes (bench/replay/flops/step_flops.hpp).
  std::optional<double> flops_per_step;        // hardware FLOPs (recompute included)
  std::optional<double> model_flops_per_step;  // model FLOPs (MFU's numerator)
  std::uint64_t collective_buffer_bytes = 0;  // largest over ranks
  std::uint64_t compute_buffer_bytes = 0;
  std::vector<std::string> hosts, devices;  // by rank
  std::vector<int> group_sizes;             // by GroupKind (strided: each op has its own)
  std::string engine, backend, transport;
  // --optimizer as asked, what it ran, and why (empty: a loaded schedule or a trace)
  std::string optimizer_asked, optimizer, optimizer_why;
  std::string host_time_source;  // where --host-time's figures come from (empty: not built)
  int world = 1, nodes = 1;
  // An emulated profile's links: each collective's line-rate verdict (bench/replay/op_line_rate).
  std::optional<NodeLinks> node_links;
  // -G: the comm-only step recorded as one CUDA graph (graph_step.hpp), median over the launches.
  std::optional<double> comm_only_graph_ms;
  int graph_launches = 0;
};

// -G: (comm-only step launched op by op - as one graph) per collective, in us.
std::optional<double> launch_cost_us_per_collective(const ReplayMeasurements& m);

inline constexpr double kSanityTolerance = 0.05;

const PassSummary& pass_of(const ReplayMeasurements& m, PassKind pass);

// One record per compute/comm op, per unit and one for the step; `run` is attached to each.
std::vector<nlohmann::json> replay_records(const ReplayMeasurements& m, const nlohmann::json& run);

void print_replay_table(const ReplayMeasurements& m, std::FILE* out);

}  // namespace collreplay
