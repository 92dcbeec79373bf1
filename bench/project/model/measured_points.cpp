#include "bench/project/model/measured_points.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "common/errors.hpp"
#include "records/results_reader.hpp"
#include "workloads/plan/parallel/mesh.hpp"
#include "workloads/schedule_summary.hpp"
#include "collectives/ops/op_registry.hpp"

namespace collreplay::project {
namespace {

using nlohmann::json;
using records::number_at;
using records::text_at;

double number_or(const json& j, const char* key, double fallback) {
  return number_at(j, key).value_or(fallback);
}

std::string string_or(const json& j, const char* key, const std::string& fallback = "") {
  return text_at(j, key).value_or(fallback);
}

// run.nccl_algo is a name ("Ring", "RING_LL128") or an object by collective ("all_gather": "PAT").
std::optional<Algo> reported_algo(const json& run, const std::string& op) {
  auto it = run.find("nccl_algo");
  if (it == run.end()) return std::nullopt;
  Algo algo;
  if (it->is_string() && algo_from_name(it->get<std::string>(), algo)) return algo;
  if (it->is_object() && it->contains(op) && (*it)[op].is_string() &&
      algo_from_name((*it)[op].get<std::string>(), algo))
    return algo;
  return std::nullopt;
}

std::string transport_of(const json& record, const json& run) {
  return string_or(run, "transport_verified", string_or(record, "transport"));
}

struct Reader {
  std::string transport_filter, fabric_filter;
  ResultsSet set;
  // Replay comm points before aggregation: same (file, kind, bytes, ranks, nodes) -> times.
  std::map<std::tuple<std::string, int, double, int, int>, std::vector<double>> replay_times;
  std::map<std::tuple<std::string, int, double, int, int>, MeasuredPoint> replay_point;

  void perf(const json& r, const json& run, const std::string& file) {
    if (number_or(r, "wrong", 0) > 0) return;
    MeasuredPoint p;
    p.kind = coll_kind_from_name(r.at("op").get<std::string>());
    p.bytes = r.at("bytes").get<double>();
    p.span.ranks = static_cast<int>(number_or(r, "ranks", number_or(run, "ranks", 1)));
    p.span.nodes = static_cast<int>(number_or(r, "nodes", number_or(run, "nodes", 1)));
    p.time_us = r.at("time_us").get<double>();
    if (p.span.nodes < 1 || p.span.ranks % p.span.nodes != 0)
      throw UsageError(file + ": " + std::to_string(p.span.ranks) +
                       " ranks are not a multiple of " + std::to_string(p.span.nodes) + " nodes");
    p.run_nodes = p.span.nodes;
    p.algo_reported = reported_algo(run, r.at("op").get<std::string>());
    p.transport = transport_of(r, run);
    p.fabric = string_or(run, "fabric");
    p.source = "perf";
    p.file = file;
    if (p.bytes > 0 && p.time_us > 0) set.points.push_back(p);
  }

  ReplayRun& replay_of(const std::string& file, const json& run) {
    if (set.replays.empty() || set.replays.back().file != file) {
      ReplayRun rr;
      rr.file = file;
      rr.nodes = static_cast<int>(number_or(run, "nodes", 1));
      rr.world = static_cast<int>(number_or(run, "ranks", 1));
      rr.ranks_per_node =
          static_cast<int>(number_or(run, "ranks_per_node", rr.world / std::max(rr.nodes, 1)));
      rr.algo_reported = reported_algo(run, "");
      set.replays.push_back(rr);
    }
    return set.replays.back();
  }

  void replay_op(const json& r, const json& run, const std::string& file) {
    ReplayRun& rr = replay_of(file, run);
    const int index = static_cast<int>(number_or(r, "op", -1));
    if (string_or(r, "stream") == "compute") {
      rr.compute_unit[index] = string_or(r, "unit");
      if (r.contains("compute_only_ms"))
        rr.compute_ms[string_or(r, "name")] = number_or(r["compute_only_ms"], "max", 0);
      return;
    }
    ReplayComm c;
    c.op = index;
    c.name = string_or(r, "name");
    c.unit = string_or(r, "unit");
    c.hides_behind = static_cast<int>(number_or(r, "hides_behind", -1));
    const std::string kind = r.at("kind").get<std::string>();
    c.kind = coll_kind_from_name(kind);
    c.bytes = r.at("bytes").get<double>();
    c.span = replay_group_span(string_or(r, "group", "world"),
                               static_cast<int>(number_or(r, "group_size", rr.world)), rr.nodes,
                               rr.ranks_per_node, 1,
                               static_cast<int>(number_or(r, "group_stride", 1)));
    c.comm_only_ms = r.contains("comm_only_ms") ? number_or(r["comm_only_ms"], "max", 0) : 0;
    rr.comms.push_back(c);
    if (c.bytes <= 0 || c.comm_only_ms <= 0) return;
    const auto key =
        std::make_tuple(file, static_cast<int>(c.kind), c.bytes, c.span.ranks, c.span.nodes);
    replay_times[key].push_back(c.comm_only_ms * 1e3);
    MeasuredPoint p;
    p.kind = c.kind;
    p.bytes = c.bytes;
    p.span = c.span;
    p.run_nodes = rr.nodes;
    p.algo_reported = reported_algo(run, kind);
    p.transport = transport_of(r, run);
    p.fabric = string_or(run, "fabric");
    p.source = "replay";
    p.file = file;
    replay_point[key] = p;
  }

  void replay_step(const json& r, const json& run, const std::string& file) {
    ReplayRun& rr = replay_of(file, run);
    rr.model = string_or(r, "model");
    rr.transport = transport_of(r, run);
    rr.micro_batch = static_cast<std::int64_t>(number_or(r, "micro_batch", 0));
    rr.seq = static_cast<std::int64_t>(number_or(r, "seq", 0));
    rr.step_comm_ms = number_at(r, "comm_ms");
    rr.step_compute_ms = number_at(r, "compute_ms");
    rr.step_overlapped_ms = number_at(r, "overlapped_ms");
    rr.peak_tflops = number_at(r, "peak_tflops");
    rr.mfu_compute_only = number_at(r, "mfu_compute_only");
  }

  void add(const records::Record& record) {
    const json& r = record.data;
    const json run = r.contains("run") && r["run"].is_object() ? r["run"] : json::object();
    if (!transport_filter.empty() && transport_of(r, run) != transport_filter) return;
    if (!fabric_filter.empty() && string_or(run, "fabric") != fabric_filter) return;
    const std::string kind = string_or(r, "record");
    try {
      if (kind.empty() && r.contains("op") && r.contains("time_us"))
        perf(r, run, record.file);
      else if (kind == "op")
        replay_op(r, run, record.file);
      else if (kind == "step")
        replay_step(r, run, record.file);
    } catch (const json::exception& e) {
      throw UsageError(record.where() + ": " + e.what());
    }
  }
};

}  // namespace

namespace {

// The ranks and nodes a group covers (replay_group_span without its siblings).
GroupSpan group_placement(const std::string& group, int size, int nodes, int rpn, int tp,
                          int stride) {
  if (size < 1 || nodes < 1 || rpn < 1 || tp < 1)
    throw UsageError("group of " + std::to_string(size) + " ranks");
  if (group == "node" || group == "tp" || group == "expert_node") return {size, 1};
  if (group == "strided") {
    const long long consecutive = static_cast<long long>(size) * std::max(stride, 1);
    return {size, static_cast<int>(std::clamp<long long>((consecutive + rpn - 1) / rpn, 1,
                                                         std::min(size, nodes)))};
  }
  if (group == "shard") {
    const int consecutive = size * tp;  // the ranks its members are spread over
    if (consecutive <= rpn) return {size, 1};
    return {size, std::min(nodes, consecutive / rpn)};
  }
  if (group == "expert") {
    // Consecutive ranks: inside one node, or whole nodes.
    if (size <= rpn) return {size, 1};
    if (size % rpn != 0)
      throw UsageError("an expert group of " + std::to_string(size) +
                       " ranks is not a multiple of " + std::to_string(rpn) + " GPUs per node");
    return {size, size / rpn};
  }
  if (group == "data_parallel") return {size, std::min(nodes, size)};
  return {size, std::min(nodes, size)};  // world
}

}  // namespace

GroupSpan replay_group_span(const std::string& group, int size, int nodes, int rpn, int tp,
                            int stride) {
  GroupSpan span = group_placement(group, size, nodes, rpn, tp, stride);
  span.node_ranks = rpn;  // every rank of a node runs its own group of this kind at once
  return span;
}

GroupSpan schedule_op_span(const Schedule& s, const CollectiveOp& c, int nodes, int rpn) {
  const int size = collective_group_size(s, c);
  if (!op_spec(c.kind).needs_partner())
    return replay_group_span(std::string(group_kind_name(c.group)), size, nodes, rpn, s.tp,
                             c.group_stride);
  // The peer's world rank: the peer-th member (ascending ranks) of this rank's group.
  int peer_rank = s.rank;
  if (c.group == GroupKind::strided) {
    peer_rank = StridedGroup{c.group_size, c.group_stride}.member(s.rank, c.peer);
  } else {
    const MeshLayout mesh = mesh_layout(s);
    const auto color = [&](int r) {
      return c.group == GroupKind::node ? r / rpn : mesh_group_color(mesh, c.group, r);
    };
    for (int r = 0, seen = 0; r < s.world; ++r)
      if (color(r) == color(s.rank) && seen++ == c.peer) peer_rank = r;
  }
  // Every rank of a stage sends at once: a cross-node hop shares the node's NICs with them.
  return {2, peer_rank / rpn == s.rank / rpn ? 1 : 2, rpn};
}

ResultsSet load_results(const std::string& path, const std::string& transport,
                        const std::string& fabric) {
  Reader reader;
  reader.transport_filter = transport;
  reader.fabric_filter = fabric;
  // Strictly: a line the fit cannot read must stop it, not silently drop a point.
  for (const records::Record& record : records::read_results_strictly({path})) reader.add(record);
  reader.set.files = static_cast<int>(records::results_files(path).size());
  for (auto& [key, times] : reader.replay_times) {
    std::sort(times.begin(), times.end());
    MeasuredPoint p = reader.replay_point[key];
    p.time_us = times[times.size() / 2];
    reader.set.points.push_back(p);
  }
  return reader.set;
}

void require_one_fabric(const std::vector<MeasuredPoint>& points, const std::string& where) {
  std::set<std::string> seen;
  for (const MeasuredPoint& p : points)
    if (!p.fabric.empty()) seen.insert(p.fabric);
  if (seen.size() <= 1) return;
  std::string list;
  for (const std::string& f : seen) list += (list.empty() ? "" : ", ") + f;
  throw UsageError(where + ": results from several fabrics (" + list +
                   "): pick one with --results-fabric");
}

void require_one_transport_per_tier(const std::vector<MeasuredPoint>& points,
                                    const std::string& where) {
  for (bool multi : {false, true}) {
    std::set<std::string> seen;
    for (const MeasuredPoint& p : points)
      if ((p.span.nodes > 1) == multi && p.span.ranks > 1 && !p.transport.empty())
        seen.insert(p.transport);
    if (seen.size() > 1) {
      std::string list;
      for (const std::string& t : seen) list += (list.empty() ? "" : ", ") + t;
      throw UsageError(where + ": " + (multi ? "multi" : "single") +
                       "-node results mix transports " + list + ": pick one with --transport");
    }
  }
}

std::vector<int> node_counts(const std::vector<MeasuredPoint>& points) {
  std::set<int> counts;
  for (const MeasuredPoint& p : points) counts.insert(p.run_nodes);
  return {counts.begin(), counts.end()};
}

}  // namespace collreplay::project
