#include "workloads/plan/pipeline/pipeline_sim.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "common/errors.hpp"
#include "workloads/p2p_batches.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

bool known(double t) { return !std::isnan(t); }

struct RankState {
  const Schedule* s = nullptr;
  const std::vector<double>* ms = nullptr;
  std::vector<int> leader;               // p2p group leader per op
  std::vector<std::vector<int>> group;    // per leader: the ops issued with it (itself first)
  std::vector<std::vector<int>> streams;  // per stream: compute ops, collectives, p2p leaders
  std::vector<std::size_t> cursor;
  std::vector<double> start, end;
  std::vector<std::pair<int, int>> partner;  // p2p: (rank index, op), else (-1, -1)
};

// Stream 0: compute; then one per group (kind, size, stride).
std::vector<std::vector<int>> stream_lists(const Schedule& s, const std::vector<int>& leader) {
  std::map<std::tuple<int, int, int>, std::size_t> ids;
  std::vector<std::vector<int>> lists(1);
  for (int i = 0; i < static_cast<int>(s.ops.size()); ++i) {
    const ScheduleOp& op = s.ops[static_cast<std::size_t>(i)];
    std::size_t stream = 0;
    if (op.is_collective()) {
      if (leader[static_cast<std::size_t>(i)] != i) continue;  // issued with its group's first
      const CollectiveOp& c = op.collective();
      const bool strided = c.group == GroupKind::strided;
      const auto key = std::tuple(static_cast<int>(c.group), strided ? c.group_size : 0,
                                  strided ? c.group_stride : 0);
      auto found = ids.find(key);
      if (found == ids.end()) {
        found = ids.emplace(key, lists.size()).first;
        lists.emplace_back();
      }
      stream = found->second;
    }
    lists[stream].push_back(i);
  }
  return lists;
}

int peer_world_rank(const Schedule& s, const CollectiveOp& c) {
  if (c.group == GroupKind::strided) return StridedGroup{c.group_size, c.group_stride}.member(s.rank, c.peer);
  if (c.group == GroupKind::world) return c.peer;
  throw RuntimeError("pipeline simulation: a send or receive outside a strided or world group");
}

// The k-th send a -> b meets the k-th receive on b from a.
void match_partners(std::vector<RankState>& ranks) {
  std::map<int, int> index_of_rank;
  for (std::size_t i = 0; i < ranks.size(); ++i) index_of_rank[ranks[i].s->rank] = static_cast<int>(i);
  std::map<std::tuple<int, int, bool>, std::vector<int>> queue;  // (from, to, is_send) -> ops
  for (RankState& r : ranks) {
    r.partner.assign(r.s->ops.size(), {-1, -1});
    for (int i = 0; i < static_cast<int>(r.s->ops.size()); ++i) {
      const ScheduleOp& op = r.s->ops[static_cast<std::size_t>(i)];
      if (!op.is_collective()) continue;
      const CollectiveKind k = op.collective().kind;
      if (k != CollectiveKind::send && k != CollectiveKind::recv) continue;
      const int peer = peer_world_rank(*r.s, op.collective());
      if (!index_of_rank.count(peer))
        throw RuntimeError("pipeline simulation: '" + op.name + "' on rank " +
                           std::to_string(r.s->rank) + " talks to rank " + std::to_string(peer) +
                           ", which is not simulated");
      const bool send = k == CollectiveKind::send;
      queue[{send ? r.s->rank : peer, send ? peer : r.s->rank, send}].push_back(i);
    }
  }
  for (const auto& [key, sends] : queue) {
    const auto [from, to, is_send] = key;
    if (!is_send) continue;
    const std::vector<int>& recvs = queue[{from, to, false}];
    if (recvs.size() != sends.size())
      throw RuntimeError("pipeline simulation: rank " + std::to_string(from) + " sends " +
                         std::to_string(sends.size()) + " times to rank " + std::to_string(to) +
                         ", which receives " + std::to_string(recvs.size()));
    const int a = index_of_rank[from], b = index_of_rank[to];
    for (std::size_t k = 0; k < sends.size(); ++k) {
      ranks[static_cast<std::size_t>(a)].partner[static_cast<std::size_t>(sends[k])] = {b, recvs[k]};
      ranks[static_cast<std::size_t>(b)].partner[static_cast<std::size_t>(recvs[k])] = {a, sends[k]};
    }
  }
}

// Advances one stream as far as it can; whether it moved.
bool advance(std::vector<RankState>& ranks, RankState& r, std::size_t stream) {
  bool moved = false;
  const std::vector<int>& list = r.streams[stream];
  while (r.cursor[stream] < list.size()) {
    const int op = list[r.cursor[stream]];
    const double free = r.cursor[stream] == 0 ? 0 : r.end[static_cast<std::size_t>(list[r.cursor[stream] - 1])];
    const std::vector<int>& group = r.group[static_cast<std::size_t>(op)];
    if (!known(r.start[static_cast<std::size_t>(op)])) {
      double t = free;
      for (int m : group)
        for (int d : r.s->ops[static_cast<std::size_t>(m)].deps) {
          if (!known(r.end[static_cast<std::size_t>(d)])) return moved;
          t = std::max(t, r.end[static_cast<std::size_t>(d)]);
        }
      for (int m : group) r.start[static_cast<std::size_t>(m)] = t;
      moved = true;
    }
    const double start = r.start[static_cast<std::size_t>(op)];
    double end = start + (*r.ms)[static_cast<std::size_t>(op)];
    for (int m : group) {
      const auto [j, q] = r.partner[static_cast<std::size_t>(m)];
      if (j < 0) {
        end = std::max(end, start + (*r.ms)[static_cast<std::size_t>(m)]);
        continue;
      }
      const RankState& other = ranks[static_cast<std::size_t>(j)];
      const double theirs = other.start[static_cast<std::size_t>(q)];
      if (!known(theirs)) return moved;
      const double transfer = std::max((*r.ms)[static_cast<std::size_t>(m)],
                                       (*other.ms)[static_cast<std::size_t>(q)]);
      end = std::max(end, std::max(start, theirs) + transfer);
    }
    for (int m : group) r.end[static_cast<std::size_t>(m)] = end;
    ++r.cursor[stream];
    moved = true;
  }
  return moved;
}

}  // namespace

PipelineStep simulate_ranks(const std::vector<const Schedule*>& schedules,
                            const std::vector<std::vector<double>>& op_ms) {
  if (schedules.size() != op_ms.size()) throw RuntimeError("pipeline simulation: times per rank");
  std::vector<RankState> ranks(schedules.size());
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    RankState& r = ranks[i];
    r.s = schedules[i];
    r.ms = &op_ms[i];
    if (op_ms[i].size() != r.s->ops.size())
      throw RuntimeError("pipeline simulation: one time per op needed");
    r.leader = p2p_group_leaders(*r.s);
    r.streams = stream_lists(*r.s, r.leader);
    r.group.resize(r.s->ops.size());
    for (std::size_t op = 0; op < r.s->ops.size(); ++op)
      r.group[static_cast<std::size_t>(r.leader[op])].push_back(static_cast<int>(op));
    r.cursor.assign(r.streams.size(), 0);
    r.start.assign(r.s->ops.size(), kUnknown);
    r.end.assign(r.s->ops.size(), kUnknown);
  }
  match_partners(ranks);
  for (bool moved = true; moved;) {
    moved = false;
    for (RankState& r : ranks)
      for (std::size_t s = 0; s < r.streams.size(); ++s) moved = advance(ranks, r, s) || moved;
  }
  PipelineStep step;
  for (const RankState& r : ranks) {
    RankTimeline t;
    t.rank = r.s->rank;
    t.first_ms = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < r.s->ops.size(); ++i) {
      if (!known(r.end[i]))
        throw RuntimeError("pipeline simulation: '" + r.s->ops[i].name + "' on rank " +
                           std::to_string(r.s->rank) + " never runs: the ranks wait for each "
                           "other (their sends and receives are not in one order)");
      t.end_ms = std::max(t.end_ms, r.end[i]);
      if (r.s->ops[i].is_collective()) continue;
      t.compute_ms += (*r.ms)[i];
      t.first_ms = std::min(t.first_ms, r.start[i]);
    }
    if (!std::isfinite(t.first_ms)) t.first_ms = 0;
    step.step_ms = std::max(step.step_ms, t.end_ms);
    step.ranks.push_back(t);
  }
  return step;
}

}  // namespace collreplay
