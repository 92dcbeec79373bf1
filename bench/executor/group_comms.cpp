#include "bench/executor/group_comms.hpp"

#include <exception>
#include <set>
#include <string>

#include "bench/executor/collective_plan.hpp"
#include "common/errors.hpp"
#include "workloads/p2p_batches.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

// Order-independent digest of a set of groups, exact in a double (below 2^52), so that
// max(x) == x == -max(-x) on every rank means every rank has the same set.
double groups_digest(const std::set<GroupKey>& keys) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << 50) - 1;
  std::uint64_t sum = keys.size();
  for (const GroupKey& k : keys) {
    std::uint64_t h = (static_cast<std::uint64_t>(k.kind) << 40) ^
                      (static_cast<std::uint64_t>(k.size) << 20) ^
                      static_cast<std::uint64_t>(k.stride);
    h = (h * 0x9e3779b97f4a7c15ULL) >> 14;
    sum = (sum + h) & kMask;
  }
  return static_cast<double>(sum);
}

// What every rank of a job must issue alike, as an exact double: the number of collectives
// outside send / recv (whose partners differ by rank) and the bytes of those whose size is the
// same on every rank (all but all_to_allv, whose splits differ).
struct CollectiveTally {
  std::uint64_t calls = 0, bytes = 0;
  double digest() const {
    constexpr std::uint64_t kMask = (std::uint64_t{1} << 50) - 1;
    return static_cast<double>((calls * 0x9e3779b1ULL + bytes) & kMask);
  }
};

CollectiveTally tally(const Schedule& schedule) {
  CollectiveTally t;
  for (const ScheduleOp& op : schedule.ops) {
    if (!op.is_collective()) continue;
    const CollectiveKind k = op.collective().kind;
    if (is_point_to_point(k)) continue;
    ++t.calls;
    if (k != CollectiveKind::all_to_allv) t.bytes += op.collective().bytes;
  }
  return t;
}

// Whether every rank holds `value`. Both reductions run on every rank before either is compared
// (a short-circuit || once left the rank with the largest value waiting in the second).
bool same_on_every_rank(const AgreeMax& agree_max, double value) {
  const double largest = agree_max(value);
  const double smallest = -agree_max(-value);
  return largest == value && smallest == value;
}

// A pipeline's stages issue different collectives (the embedding on the first, the head on the
// last): each stage's ranks must agree among themselves (workloads/p2p_batches.hpp finds them).
std::pair<int, int> pipeline_stage(const Schedule& schedule) {
  const PipelinePlace place = pipeline_place(schedule);
  return {place.stages, place.stage};
}

// Whether the ranks of each stage hold one `value` (>= 0), the same answer on every rank: one
// agreement per stage (every rank has the same stage count: the groups were agreed on first).
bool same_within_stages(const AgreeMax& agree_max, std::pair<int, int> stage, double value) {
  constexpr double kBelow = -9.0e15;  // below every digest, above -2^53
  bool same = true;
  for (int t = 0; t < stage.first; ++t) {
    const bool mine = stage.second == t;
    const double largest = agree_max(mine ? value : -1.0);
    const double smallest = -agree_max(mine ? -value : kBelow);
    if (mine) same = same && largest == value && smallest == value;
  }
  return agree_max(same ? 0.0 : 1.0) == 0;  // one answer on every rank
}

std::string list(const std::set<GroupKey>& keys) {
  std::string text;
  for (const GroupKey& k : keys) text += (text.empty() ? "" : ", ") + group_key_label(k);
  return text.empty() ? "none" : text;
}

}  // namespace

GroupComms::GroupComms(Communicator& world, const Schedule& schedule, int node_color,
                       const AgreeMax& agree_max)
    : world_(world) {
  std::set<GroupKey> used;
  for (const ScheduleOp& op : schedule.ops)
    if (op.is_collective() && op.collective().group != GroupKind::world)
      used.insert(group_key(op.collective()));
  const int rank = world.rank();
  const MeshLayout mesh = mesh_layout(schedule);
  // What this rank finds wrong with its own schedule. Every rank takes part in the agreement
  // below before any throws, so a rank with a bad schedule never leaves the others waiting in it.
  std::string problem;
  if (mesh.ep < 1 || mesh.tp < 1 || world.size() % (mesh.ep * mesh.tp) != 0 ||
      world.size() % (mesh.shard() * mesh.tp) != 0)
    problem = "the schedule's mesh (ep " + std::to_string(mesh.ep) + ", tp " +
              std::to_string(mesh.tp) + ", shard group " + std::to_string(mesh.shard()) +
              ") does not divide the world of " + std::to_string(world.size()) + " ranks";
  for (const GroupKey& key : used) {
    if (key.kind != GroupKind::strided || !problem.empty()) continue;
    const std::string wrong = StridedGroup{key.size, key.stride}.problem(world.size());
    if (!wrong.empty()) problem = "group " + group_key_label(key) + ": " + wrong;
  }
  const bool another_rank_failed = agree_max && agree_max(problem.empty() ? 0.0 : 1.0) > 0;
  if (!problem.empty()) throw UsageError(problem);
  if (another_rank_failed)
    throw UsageError("another rank's schedule has groups this world cannot form (its own line says "
                     "which)");
  if (agree_max) {
    if (!same_on_every_rank(agree_max, groups_digest(used)))
      throw UsageError("the ranks' schedules use different sets of groups (this rank: " +
                       list(used) + "); every rank must take part in every group's split");
    // Ranks that issue different collectives would pair the wrong calls (wrong sizes, a hang):
    // per-rank traces cut at different points of the job do.
    const CollectiveTally mine = tally(schedule);
    const std::pair<int, int> stage = pipeline_stage(schedule);
    if (stage.first > 1 ? !same_within_stages(agree_max, stage, mine.digest())
                        : !same_on_every_rank(agree_max, mine.digest()))
      throw UsageError("the ranks' schedules issue different collectives (this rank: " +
                       std::to_string(mine.calls) + " besides send/recv, " +
                       std::to_string(mine.bytes) + " bytes); with one trace per rank, trace "
                       "every rank over the same step");
  }
  // std::set iterates in key order, so every rank splits in the same order. Every group but
  // node follows the schedule's layout (its gpus_per_node), so emulated nodes on one host work.
  for (const GroupKey& key : used) {
    const StridedGroup strided{key.size, key.stride};
    const bool is_strided = key.kind == GroupKind::strided;
    const int color = key.kind == GroupKind::node ? node_color
                      : is_strided                ? strided.color(rank)
                                                  : mesh_group_color(mesh, key.kind, rank);
    auto& comm = subgroups_[key] = world.split(color, rank);
    const int expected = is_strided ? key.size : mesh_group_size(mesh, key.kind);
    if (comm->size() != expected)
      throw UsageError("group " + group_key_label(key) + " has " + std::to_string(comm->size()) +
                       " ranks here, the schedule expects " + std::to_string(expected));
  }
}

Communicator& GroupComms::get(const GroupKey& key) const {
  if (key.kind == GroupKind::world) return world_;
  auto it = subgroups_.find(key);
  if (it == subgroups_.end())
    throw RuntimeError("no communicator for group " + group_key_label(key));
  return *it->second;
}

std::vector<GroupKey> GroupComms::keys() const {
  std::vector<GroupKey> keys{GroupKey{}};
  for (const auto& [key, comm] : subgroups_) keys.push_back(key);
  return keys;
}

std::vector<Communicator*> GroupComms::all() const {
  std::vector<Communicator*> comms{&world_};
  for (const auto& [group, comm] : subgroups_) comms.push_back(comm.get());
  return comms;
}

void GroupComms::abandon_all() const {
  for (auto it = subgroups_.rbegin(); it != subgroups_.rend(); ++it)
    if (it->second) it->second->abandon();
  world_.abandon();
}

AbandonOnUnwind::AbandonOnUnwind(const GroupComms& groups)
    : groups_(groups), uncaught_at_start_(std::uncaught_exceptions()) {}

AbandonOnUnwind::~AbandonOnUnwind() {
  if (std::uncaught_exceptions() > uncaught_at_start_) groups_.abandon_all();
}

}  // namespace collreplay
