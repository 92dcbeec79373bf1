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

// What a rank's schedule is to the simulation, worked out once.
struct RankSimulation::Rank {
  const Schedule* s = nullptr;
  std::vector<std::vector<int>> streams;  // per stream: compute ops, collectives, p2p leaders
  // Per leader (and every other op alone): the ops issued with it, [group_begin, group_end) in
  // members.
  std::vector<int> group_begin, group_end, members;
  std::vector<std::pair<int, int>> partner;  // p2p: (rank index, op), else (-1, -1)
};

namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

bool known(double t) { return !std::isnan(t); }

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
  if (c.group == GroupKind::strided)
    return StridedGroup{c.group_size, c.group_stride}.member(s.rank, c.peer);
  if (c.group == GroupKind::world) return c.peer;
  throw RuntimeError("pipeline simulation: a send or receive outside a strided or world group");
}

// Per-run state of one rank.
struct Times {
  std::vector<std::size_t> cursor;
  std::vector<double> start, end;
};

}  // namespace

RankSimulation::RankSimulation(const std::vector<const Schedule*>& schedules)
    : ranks_(schedules.size()) {
  std::map<int, int> index_of_rank;
  std::map<std::tuple<int, int, bool>, std::vector<int>> queue;  // (from, to, is_send) -> ops
  for (std::size_t i = 0; i < schedules.size(); ++i) index_of_rank[schedules[i]->rank] = static_cast<int>(i);
  for (std::size_t i = 0; i < schedules.size(); ++i) {
    Rank& r = ranks_[i];
    r.s = schedules[i];
    const auto count = r.s->ops.size();
    const std::vector<int> leader = p2p_group_leaders(*r.s);
    r.streams = stream_lists(*r.s, leader);
    std::vector<std::vector<int>> group(count);
    for (std::size_t op = 0; op < count; ++op)
      group[static_cast<std::size_t>(leader[op])].push_back(static_cast<int>(op));
    r.group_begin.assign(count, 0);
    r.group_end.assign(count, 0);
    for (std::size_t op = 0; op < count; ++op) {
      r.group_begin[op] = static_cast<int>(r.members.size());
      r.members.insert(r.members.end(), group[op].begin(), group[op].end());
      r.group_end[op] = static_cast<int>(r.members.size());
    }
    r.partner.assign(count, {-1, -1});
    for (int op = 0; op < static_cast<int>(count); ++op) {
      const ScheduleOp& o = r.s->ops[static_cast<std::size_t>(op)];
      if (!o.is_collective()) continue;
      const CollectiveKind k = o.collective().kind;
      if (k != CollectiveKind::send && k != CollectiveKind::recv) continue;
      const int peer = peer_world_rank(*r.s, o.collective());
      if (!index_of_rank.count(peer))
        throw RuntimeError("pipeline simulation: '" + o.name + "' on rank " +
                           std::to_string(r.s->rank) + " talks to rank " + std::to_string(peer) +
                           ", which is not simulated");
      const bool send = k == CollectiveKind::send;
      queue[{send ? r.s->rank : peer, send ? peer : r.s->rank, send}].push_back(op);
    }
  }
  // The k-th send a -> b meets the k-th receive on b from a.
  for (const auto& [key, sends] : queue) {
    const auto [from, to, is_send] = key;
    if (!is_send) continue;
    const std::vector<int>& recvs = queue[{from, to, false}];
    if (recvs.size() != sends.size())
      throw RuntimeError("pipeline simulation: rank " + std::to_string(from) + " sends " +
                         std::to_string(sends.size()) + " times to rank " + std::to_string(to) +
                         ", which receives " + std::to_string(recvs.size()));
    const auto a = static_cast<std::size_t>(index_of_rank[from]);
    const auto b = static_cast<std::size_t>(index_of_rank[to]);
    for (std::size_t k = 0; k < sends.size(); ++k) {
      ranks_[a].partner[static_cast<std::size_t>(sends[k])] = {static_cast<int>(b), recvs[k]};
      ranks_[b].partner[static_cast<std::size_t>(recvs[k])] = {static_cast<int>(a), sends[k]};
    }
  }
}

RankSimulation::~RankSimulation() = default;

PipelineStep RankSimulation::run(const std::vector<std::vector<double>>& op_ms) const {
  if (op_ms.size() != ranks_.size()) throw RuntimeError("pipeline simulation: times per rank");
  std::vector<Times> t(ranks_.size());
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    if (op_ms[i].size() != ranks_[i].s->ops.size())
      throw RuntimeError("pipeline simulation: one time per op needed");
    t[i].cursor.assign(ranks_[i].streams.size(), 0);
    t[i].start.assign(op_ms[i].size(), kUnknown);
    t[i].end.assign(op_ms[i].size(), kUnknown);
  }
  // Advances one stream as far as it can; whether it moved.
  const auto advance = [&](std::size_t ri, std::size_t stream) {
    const Rank& r = ranks_[ri];
    Times& mine = t[ri];
    const std::vector<double>& ms = op_ms[ri];
    const std::vector<int>& list = r.streams[stream];
    bool moved = false;
    while (mine.cursor[stream] < list.size()) {
      const auto op = static_cast<std::size_t>(list[mine.cursor[stream]]);
      const std::size_t at = mine.cursor[stream];
      const double free = at == 0 ? 0 : mine.end[static_cast<std::size_t>(list[at - 1])];
      const int* first = r.members.data() + r.group_begin[op];
      const int* last = r.members.data() + r.group_end[op];
      if (!known(mine.start[op])) {
        double start = free;
        for (const int* m = first; m != last; ++m)
          for (int d : r.s->ops[static_cast<std::size_t>(*m)].deps) {
            if (!known(mine.end[static_cast<std::size_t>(d)])) return moved;
            start = std::max(start, mine.end[static_cast<std::size_t>(d)]);
          }
        for (const int* m = first; m != last; ++m) mine.start[static_cast<std::size_t>(*m)] = start;
        moved = true;
      }
      const double start = mine.start[op];
      double end = start + ms[op];
      for (const int* m = first; m != last; ++m) {
        const auto me = static_cast<std::size_t>(*m);
        const auto [j, q] = r.partner[me];
        if (j < 0) {
          end = std::max(end, start + ms[me]);
          continue;
        }
        const double theirs = t[static_cast<std::size_t>(j)].start[static_cast<std::size_t>(q)];
        if (!known(theirs)) return moved;
        // Both sides move the same bytes: the slower side's time.
        const double transfer = std::max(ms[me], op_ms[static_cast<std::size_t>(j)][static_cast<std::size_t>(q)]);
        end = std::max(end, std::max(start, theirs) + transfer);
      }
      for (const int* m = first; m != last; ++m) mine.end[static_cast<std::size_t>(*m)] = end;
      ++mine.cursor[stream];
      moved = true;
    }
    return moved;
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t i = 0; i < ranks_.size(); ++i)
      for (std::size_t s = 0; s < ranks_[i].streams.size(); ++s) moved = advance(i, s) || moved;
  }
  PipelineStep step;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    const Schedule& s = *ranks_[i].s;
    RankTimeline line;
    line.rank = s.rank;
    line.first_ms = std::numeric_limits<double>::infinity();
    for (std::size_t op = 0; op < s.ops.size(); ++op) {
      if (!known(t[i].end[op]))
        throw RuntimeError("pipeline simulation: '" + s.ops[op].name + "' on rank " +
                           std::to_string(s.rank) + " never runs: the ranks wait for each "
                           "other (their sends and receives are not in one order)");
      line.end_ms = std::max(line.end_ms, t[i].end[op]);
      if (s.ops[op].is_collective()) continue;
      line.compute_ms += op_ms[i][op];
      line.first_ms = std::min(line.first_ms, t[i].start[op]);
    }
    if (!std::isfinite(line.first_ms)) line.first_ms = 0;
    step.step_ms = std::max(step.step_ms, line.end_ms);
    step.ranks.push_back(line);
  }
  return step;
}

PipelineStep simulate_ranks(const std::vector<const Schedule*>& schedules,
                            const std::vector<std::vector<double>>& op_ms) {
  return RankSimulation(schedules).run(op_ms);
}

}  // namespace collreplay
