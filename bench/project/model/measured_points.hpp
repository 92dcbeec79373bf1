// Reads a results folder (or one .jsonl file) into what the fit and the validation use: timed
// collective points from the perf executables and from replay's comm-only pass, and each
// replay's ops, units and step as measured.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/project/model/cost_model.hpp"
#include "workloads/schedule.hpp"

namespace collreplay::project {

// One collective size on one group, timed.
struct MeasuredPoint {
  CollKind kind = CollKind::all_gather;
  double bytes = 0;  // nccl-tests S
  GroupSpan span;
  int run_nodes = 1;   // nodes of the run it was measured in (the span may be one node)
  double time_us = 0;  // perf: time_us; replay: median over same-size ops of comm_only_ms.max
  std::optional<Algo> algo_reported;  // run.nccl_algo where the run recorded it
  std::string transport;              // run.transport_verified (or the record's transport)
  std::string fabric;                 // run.fabric where recorded (profile name or "real")
  std::string source;                 // "perf" | "replay"
  std::string file;
};

// One comm op of a replay as measured.
struct ReplayComm {
  int op = -1;
  std::string name, unit;
  int hides_behind = -1;
  CollKind kind = CollKind::all_gather;
  double bytes = 0;
  GroupSpan span;
  double comm_only_ms = 0;  // max over ranks
};

// One replay run (one file's op/unit/step records).
struct ReplayRun {
  std::string file, model, transport;
  int nodes = 1, ranks_per_node = 1, world = 1;
  std::int64_t micro_batch = 0, seq = 0;
  std::vector<ReplayComm> comms;
  std::map<int, std::string> compute_unit;   // compute op index -> unit
  std::map<std::string, double> compute_ms;  // compute op name -> compute-only ms (max)
  std::optional<double> step_comm_ms, step_compute_ms, step_overlapped_ms, peak_tflops;
  std::optional<double> mfu_compute_only;  // its compute-only pass's MFU
  std::optional<Algo> algo_reported;
};

struct ResultsSet {
  std::vector<MeasuredPoint> points;
  std::vector<ReplayRun> replays;
  int files = 0;
};

// Every *.jsonl under `path` (recursively) or `path` itself. `transport` / `fabric`, when not
// empty, keep only runs whose verified transport / run.fabric is that. UsageError with file:line
// on malformed input.
ResultsSet load_results(const std::string& path, const std::string& transport = "",
                        const std::string& fabric = "");

// UsageError when the points come from runs on different fabrics (a sweep over several profiles).
void require_one_fabric(const std::vector<MeasuredPoint>& points, const std::string& where);

// UsageError when the single-node points, or the multi-node points, mix verified transports
// (fitting NVLink and socket times into one tier would describe neither).
void require_one_transport_per_tier(const std::vector<MeasuredPoint>& points,
                                    const std::string& where);

// The distinct node counts of the runs the points come from, ascending.
std::vector<int> node_counts(const std::vector<MeasuredPoint>& points);

// Group placement of a replay op: its group kind and size in a run of `nodes` x `ranks_per_node`
// with tensor parallelism of degree `tp` (workloads/plan/parallel/mesh.hpp: a tp group is
// consecutive ranks of one node; a shard group takes every tp-th rank of size x tp consecutive
// ones, so HSDP's stays inside a node; replica groups span the nodes).
// A strided group (size ranks `stride` apart) spans size x stride consecutive ranks.
GroupSpan replay_group_span(const std::string& group, int group_size, int nodes,
                            int ranks_per_node, int tp = 1, int stride = 1);

// The span a collective of `schedule` (on its rank) costs: its group's, but for a send or recv
// the two ranks of the transfer (one node or two: the tier the peer is on).
GroupSpan schedule_op_span(const Schedule& schedule, const CollectiveOp& collective, int nodes,
                           int ranks_per_node);

}  // namespace collreplay::project
