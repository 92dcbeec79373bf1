// Synthetic sweeps for the projection tests: perf records and replay records timed by a known
// cost model (with seeded multiplicative noise), written as the executables write them, so the
// fit and --validate can be checked against the parameters that made the data.
#pragma once
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/project/model/cost_model.hpp"
#include "bench/project/model/measured_points.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay::project::synthetic {

using nlohmann::json;

// The fabric the synthetic sweeps are made from: a 1 GB/s-per-node TCP-like fabric, 100 us hops,
// ranks on a node sharing memory at 4 GB/s, small chunks half as efficient at 64 KiB.
inline FabricModel truth() {
  FabricModel m;
  m.base_us = 20;
  m.intra = TierParams{5, 4.0, 64 * 1024, 0.8};
  m.inter = TierParams{100, 1.0, 64 * 1024, 0.8};
  m.links = 1;
  m.pat_allowed = false;
  m.tree_allowed = false;
  return m;
}

inline json run_json(int nodes, int ranks_per_node) {
  return {{"nodes", nodes},
          {"ranks", nodes * ranks_per_node},
          {"ranks_per_node", ranks_per_node},
          {"transport_verified", "socket"},
          {"fabric", "synthetic"},
          {"emulated", true}};
}

class Noise {
 public:
  explicit Noise(double spread, std::uint32_t seed = 7) : spread_(spread), rng_(seed) {}
  double operator()() {
    return spread_ > 0 ? 1 + std::uniform_real_distribution<double>(-spread_, spread_)(rng_) : 1;
  }

 private:
  double spread_;
  std::mt19937 rng_;
};

// nccl-tests-style perf records for all_gather and reduce_scatter, 64 KiB .. 256 MiB by 4x.
inline std::vector<json> perf_records(const FabricModel& m, int nodes, int ranks_per_node,
                                      Noise& noise) {
  std::vector<json> records;
  const GroupSpan span{nodes * ranks_per_node, nodes};
  for (const char* op : {"all_gather", "reduce_scatter"})
    for (double bytes = 64 * 1024; bytes <= 256.0 * 1024 * 1024; bytes *= 4) {
      const double t = predict(coll_kind_from_name(op), bytes, span, m).time_us * noise();
      records.push_back({{"op", op},
                         {"bytes", bytes},
                         {"time_us", t},
                         {"ranks", span.ranks},
                         {"nodes", nodes},
                         {"placement", "out_of_place"},
                         {"wrong", 0},
                         {"run", run_json(nodes, ranks_per_node)}});
    }
  return records;
}

// A replay of `request` at `nodes` x `ranks_per_node`: op records (comm-only times from the model,
// compute-only times at 50 TFLOP/s) and the step record.
inline std::vector<json> replay_records(const FabricModel& m, WorkloadRequest request, int nodes,
                                        int ranks_per_node, Noise& noise) {
  request.world = nodes * ranks_per_node;
  request.gpus_per_node = ranks_per_node;
  const Schedule s = build_schedule(request);
  std::vector<json> records;
  double comm_ms = 0;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& op = s.ops[i];
    json r = {{"record", "op"},
              {"op", i},
              {"name", op.name},
              {"unit", op.unit},
              {"layer", op.layer},
              {"hides_behind", op.hides_behind},
              {"run", run_json(nodes, ranks_per_node)}};
    if (!op.is_collective()) {
      double flops = 0;
      for (const GemmShape& g : op.compute().gemms) flops += 2.0 * g.m * g.n * g.k * g.batch;
      r.update({{"stream", "compute"}, {"compute_only_ms", {{"max", flops / 50e12 * 1e3}}}});
    } else {
      const CollectiveOp& c = op.collective();
      const int size = group_size(s, c.group);
      const GroupSpan span =
          replay_group_span(std::string(group_kind_name(c.group)), size, nodes, ranks_per_node);
      const double t_ms = predict(cost_class(c.kind),
                                  static_cast<double>(c.bytes), span, m)
                              .time_us /
                          1e3 * noise();
      comm_ms += t_ms;
      r.update({{"stream", "comm"},
                {"kind", collective_kind_name(c.kind)},
                {"bytes", c.bytes},
                {"group", group_kind_name(c.group)},
                {"group_size", size},
                {"comm_only_ms", {{"max", t_ms}}}});
    }
    records.push_back(r);
  }
  records.push_back({{"record", "step"},
                     {"model", request.model},
                     {"micro_batch", request.micro_batch},
                     {"seq", request.seq},
                     {"comm_ms", comm_ms},
                     {"peak_tflops", 100.0},
                     {"run", run_json(nodes, ranks_per_node)}});
  return records;
}

inline void write_jsonl(const std::filesystem::path& file, const std::vector<json>& records) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file);
  for (const json& r : records) out << r.dump() << "\n";
}

// A sweep folder: perf (and, when `replay` is set, replay) results at each node count.
inline void write_sweep(const std::filesystem::path& dir, const std::vector<int>& node_counts,
                        int ranks_per_node, double noise_spread,
                        const WorkloadRequest* replay = nullptr) {
  Noise noise(noise_spread);
  for (int nodes : node_counts) {
    const std::string tag = std::to_string(nodes) + "n";
    write_jsonl(dir / ("perf_" + tag + ".jsonl"),
                perf_records(truth(), nodes, ranks_per_node, noise));
    if (replay)
      write_jsonl(dir / ("replay_" + tag + ".jsonl"),
                  replay_records(truth(), *replay, nodes, ranks_per_node, noise));
  }
}

}  // namespace collreplay::project::synthetic
