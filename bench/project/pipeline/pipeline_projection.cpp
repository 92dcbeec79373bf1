#include "bench/project/pipeline/pipeline_projection.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "bench/executor/group_key.hpp"
#include "bench/project/memory/pipeline_memory.hpp"
#include "bench/project/model/step_sim.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "workloads/plan/pipeline/pipeline_builder.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

struct Stage {
  Schedule built;                    // the other stages' (the asked rank's is the caller's)
  const Schedule* schedule = nullptr;
  RankOpTimes times;
  ProjectionRow row;
  std::vector<std::string> group;  // each collective's group label ("" for compute)
};

// Whether a stage's op is taken as free: (stage, op index).
using FreeOp = std::function<bool(const Stage&, std::size_t)>;

// The stages run together with comm times x `comm_factor`, the collectives `free` picks taking
// none, compute slowed under overlap (each stage's optimizer phase is in its schedule's ops).
double joint_step_ms(const std::vector<Stage>& stages, const RankSimulation& together,
                     const StepTerms& terms, double comm_factor, const FreeOp& free) {
  std::vector<std::vector<double>> op_ms;
  for (const Stage& st : stages) {
    std::vector<double> t = st.times.op_ms;
    for (std::size_t i = 0; i < t.size(); ++i)
      if (st.schedule->ops[i].is_collective()) t[i] = free(st, i) ? 0 : t[i] * comm_factor;
    op_ms.push_back(slowed_compute_ms(*st.schedule, t, terms.compute_slowdown));
  }
  return simulate_pipeline_ms(together, op_ms);
}

const FreeOp kNothingFree = [](const Stage&, std::size_t) { return false; };

bool critical(const ScheduleOp& op) { return op.hides_behind < 0 && op.layer >= 0; }

// What each group's collectives (over every stage) and the layers' critical ones expose.
template <typename Joint>
void attribute_pipeline(std::vector<Stage>& stages, const Joint& joint, ProjectionRow& row) {
  std::vector<std::string> labels;
  for (Stage& st : stages)
    for (const ScheduleOp& op : st.schedule->ops) {
      st.group.push_back(op.is_collective() ? group_key_label(group_key(op.collective())) : "");
      if (op.is_collective()) labels.push_back(st.group.back());
    }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  for (const std::string& label : labels)
    row.exposed_by_group_ms[label] =
        row.step_ms - joint(1, [&](const Stage& st, std::size_t i) { return st.group[i] == label; });
  row.critical_exposed_ms =
      row.step_ms - joint(1, [](const Stage& st, std::size_t i) {
        return critical(st.schedule->ops[i]);
      });
  // What the fabric causes (the collectives that cross nodes) and what the layout's own
  // collectives inside the nodes cost, as for one rank (projection.hpp).
  const double without_crossing =
      joint(1, [](const Stage& st, std::size_t i) {
        return st.times.crosses_nodes[i];
      });
  row.fabric_exposed_ms = row.step_ms - without_crossing;
  row.layout_exposed_ms = without_crossing - row.compute_step_ms;
  row.critical_fabric_exposed_ms =
      row.step_ms - joint(1, [](const Stage& st, std::size_t i) {
        return st.times.crosses_nodes[i] && critical(st.schedule->ops[i]);
      });
}

}  // namespace

ProjectionRow project_pipeline(const ProjectionInputs& in, const Schedule& s, int nodes,
                               NormalMaxima& maxima) {
  WorkloadRequest q = in.request;
  q.world = s.world;
  const PipelinePlan plan = request_pipeline_plan(q);
  const int local = s.rank % plan.stage_world, mine = plan.pipeline_rank(s.rank);
  std::vector<Stage> stages(static_cast<std::size_t>(plan.pp));
  ProjectionRow row;
  row.nodes = nodes;
  row.world = s.world;
  double standalone_ms = 0, flops = 0;
  bool flops_known = true;
  // Each stage's schedule and memory first: a step that does not fit need not be simulated (the
  // first stage, which holds the most activations under 1F1B, is looked at first).
  for (int p = 0; p < plan.pp; ++p) {
    Stage& st = stages[static_cast<std::size_t>(p)];
    q.rank = p * plan.stage_world + local;
    if (p == mine) {
      st.schedule = &s;
    } else if (in.pipeline_stages) {
      auto [it, fresh] = in.pipeline_stages->try_emplace(p);
      if (fresh) it->second = build_schedule(q);
      st.schedule = &it->second;
    } else {
      st.built = build_schedule(q);
      st.schedule = &st.built;
    }
    if (!in.memory) continue;
    const MemoryPerGpu mem =
        pipeline_memory_per_gpu(*st.schedule, in.memory->model, q, in.memory->states);
    if (!row.memory || mem.reserved_bytes(kSlackLow) > row.memory->reserved_bytes(kSlackLow))
      row.memory = mem;
    if (!in.simulate_unfit && memory_fit(*row.memory, in.memory->budget) == MemoryFit::no_fit) {
      row.fits = false;
      return row;
    }
  }
  if (row.memory) {
    const MemoryFit fit = memory_fit(*row.memory, in.memory->budget);
    row.fits = fit != MemoryFit::no_fit;
    row.memory_tight = fit == MemoryFit::tight;
  }
  for (int p = 0; p < plan.pp; ++p) {
    Stage& st = stages[static_cast<std::size_t>(p)];
    st.row = project_rank(in, *st.schedule, nodes, maxima, &st.times);
    for (UnitProjection u : st.row.units) {
      if (u.unit == "root") u.unit = "stage" + std::to_string(p) + ".root";
      row.units.push_back(u);
    }
    row.compute_step_ms = std::max(row.compute_step_ms, st.row.compute_step_ms);
    row.comm_step_ms = std::max(row.comm_step_ms, st.row.comm_step_ms);
    row.optimizer_ms = std::max(row.optimizer_ms, st.row.optimizer_ms);
    row.algorithms.insert(st.row.algorithms.begin(), st.row.algorithms.end());
    standalone_ms = std::max(standalone_ms, st.row.step_ms);
    const StepFlops f = schedule_step_flops(*st.schedule);
    flops_known = flops_known && f.hardware.has_value();
    flops += f.hardware.value_or(0) / plan.pp;
  }
  set_median_layer(row, in.ratio_lo, in.ratio_hi);
  std::vector<const Schedule*> schedules;
  for (const Stage& st : stages) schedules.push_back(st.schedule);
  const RankSimulation together(schedules);
  const auto joint = [&](double comm_factor, const FreeOp& free) {
    return joint_step_ms(stages, together, in.terms, comm_factor, free);
  };
  row.step_ms = joint(1, kNothingFree);
  row.exposed_comm_ms = row.step_ms - row.compute_step_ms;
  row.exposed_lo_ms = joint(in.ratio_lo, kNothingFree) - row.compute_step_ms;
  row.exposed_hi_ms = joint(in.ratio_hi, kNothingFree) - row.compute_step_ms;
  row.pipeline_wait_ms = row.step_ms - standalone_ms;
  if (in.attribute_exposure) attribute_pipeline(stages, joint, row);
  for (const Stage& st : stages)
    for (std::size_t i = 0; i < st.schedule->ops.size(); ++i)
      row.median_layer_crosses_nodes |=
          st.schedule->ops[i].layer == row.median_layer && st.times.crosses_nodes[i];
  if (row.step_ms > 0) {
    row.tokens_per_s = static_cast<double>(s.tokens_per_step) * row.world / (row.step_ms / 1e3);
    row.tokens_per_s_per_gpu = row.tokens_per_s / row.world;
  }
  const std::optional<double> hardware = flops_known ? std::optional<double>(flops) : std::nullopt;
  row.tflops_per_gpu = tflops_per_s(hardware, row.step_ms);
  row.mfu = flops_utilization(hardware, row.step_ms, in.compute.peak_tflops);
  return row;
}

}  // namespace collreplay::project
