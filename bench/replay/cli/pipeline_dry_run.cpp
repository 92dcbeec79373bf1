#include "bench/replay/cli/pipeline_dry_run.hpp"

#include <cstdio>
#include <ostream>
#include <string>

#include "common/sizes.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/plan/pipeline/pipeline_order.hpp"
#include "workloads/plan/pipeline/pipeline_sim.hpp"
#include "workloads/plan/resolved_request.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay {
namespace {

struct StageRow {
  int stage = 0;  // the pipeline rank (its stages: stage + v x pp)
  int first_rank = 0, last_rank = 0;
  std::string layers, modules;
  std::uint64_t send_bytes = 0, recv_bytes = 0;  // one activation (or gradient) per micro-batch
  double idle = 0;  // share of the step its compute stream waits
};

struct PipelineView {
  PipelinePlan plan;
  int rank = 0;  // the request's pipeline rank
  std::vector<StageRow> rows;
  std::vector<std::string> order;  // the request's rank's actions
  double ideal = 0;                // (pp - 1) / (V x M + pp - 1): equal stages, free comm
  std::int64_t hidden = 0;
  std::uint64_t dtype_bytes = 0;
  int tp = 1;
  bool split = false;  // sequence parallel: a stage's output leaves split over its TP group
};

std::string layer_range(const StageSpan& s) {
  return "layers." + std::to_string(s.first_layer) + "-" +
         std::to_string(s.first_layer + s.layers - 1);
}

PipelineView view(const WorkloadRequest& q) {
  PipelineView v;
  WorkloadRequest stage_q = q;
  stage_q.world = q.world / q.pipeline.pp;
  stage_q.rank %= stage_q.world;
  stage_q.pipeline = PipelineRequest{};
  const ResolvedRequest r = resolve_request(stage_q);
  v.plan = plan_pipeline(q, r.layers);
  v.hidden = r.model.hidden;
  v.dtype_bytes = dtype_size_bytes(r.param_dtype);
  v.tp = r.request.tp;
  v.split = r.request.tp > 1 && r.request.sequence_parallel;
  const PipelinePlan& plan = v.plan;
  v.rank = plan.pipeline_rank(q.rank);
  std::vector<Schedule> schedules;
  for (int p = 0; p < plan.pp; ++p) {
    WorkloadRequest r = q;
    r.rank = p * plan.stage_world + q.rank % plan.stage_world;
    schedules.push_back(build_schedule(r));
  }
  std::vector<const Schedule*> ranks;
  std::vector<std::vector<double>> op_ms;
  for (const Schedule& s : schedules) {
    ranks.push_back(&s);
    std::vector<double> ms;
    for (const ScheduleOp& op : s.ops)
      ms.push_back(op.is_collective() || op.phase == Phase::optimizer
                       ? 0.0
                       : gemm_flops(op.compute().gemms) / 1e12);
    op_ms.push_back(std::move(ms));
  }
  const PipelineStep step = simulate_ranks(ranks, op_ms);
  for (int p = 0; p < plan.pp; ++p) {
    StageRow row;
    row.stage = p;
    row.first_rank = p * plan.stage_world;
    row.last_rank = row.first_rank + plan.stage_world - 1;
    for (int c = 0; c < plan.virtual_stages; ++c) {
      const StageSpan& s = plan.stages[static_cast<std::size_t>(plan.stage_of(p, c))];
      row.layers += (c ? " " : "") + layer_range(s);
      if (s.embedding) row.modules += "embedding ";
      if (s.head) row.modules += "norm, head, loss";
    }
    for (const ScheduleOp& op : schedules[static_cast<std::size_t>(p)].ops) {
      if (!op.is_collective()) continue;
      const CollectiveOp& c = op.collective();
      if (c.kind == CollectiveKind::send) row.send_bytes = c.bytes;
      if (c.kind == CollectiveKind::recv) row.recv_bytes = c.bytes;
    }
    const RankTimeline& t = step.ranks[static_cast<std::size_t>(p)];
    row.idle = step.step_ms > 0 ? (step.step_ms - t.compute_ms) / step.step_ms : 0;
    v.rows.push_back(row);
  }
  for (const PipeAction& a : pipeline_actions(plan, v.rank))
    if (a.kind == PipeAction::Kind::forward || a.kind == PipeAction::Kind::backward)
      v.order.push_back(action_name(plan, v.rank, a));
  const double work = static_cast<double>(plan.virtual_stages) * plan.micro_batches;
  v.ideal = (plan.pp - 1) / (work + plan.pp - 1);
  return v;
}

std::string percent(double f) {
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * f);
  return text;
}

}  // namespace

void print_pipeline(const WorkloadRequest& q, std::ostream& out) {
  const PipelineView v = view(q);
  const PipelinePlan& plan = v.plan;
  const std::uint64_t p2p = v.rows.front().send_bytes;
  out << "# pipeline: " << plan.pp << " stages of " << plan.stage_world
      << " ranks (rank = stage x " << plan.stage_world << " + local rank), "
      << pipe_schedule_name(plan) << ", " << plan.micro_batches << " micro-batches per step\n"
      << "# P2P per micro-batch per direction (micro-batch x seq x hidden x dtype"
      << (v.split ? " / tp, sequence parallel" : "") << "): " << q.micro_batch << " x " << q.seq
      << " x " << v.hidden << " x " << v.dtype_bytes
      << (v.split ? " / " + std::to_string(v.tp) : std::string()) << " = " << p2p << " B ("
      << format_bytes(p2p) << ") over strided(" << plan.pp << "," << plan.stage_world << ")\n";
  out << "# stage  ranks          layers                         modules                 send/mb       "
         "recv/mb       idle\n";
  for (const StageRow& r : v.rows) {
    char line[256];
    std::snprintf(line, sizeof line, "# %5d  %-13s  %-29s  %-22s  %12llu  %12llu  %6s\n", r.stage,
                  (std::to_string(r.first_rank) + "-" + std::to_string(r.last_rank)).c_str(),
                  r.layers.c_str(), r.modules.empty() ? "-" : r.modules.c_str(),
                  static_cast<unsigned long long>(r.send_bytes),
                  static_cast<unsigned long long>(r.recv_bytes), percent(r.idle).c_str());
    out << line;
  }
  out << "# bubble: the idle share above, every stage's schedule run together with compute timed "
         "by its GEMM FLOPs and communication free; equal stages would idle "
      << percent(v.ideal) << " ((pp-1)/(V x M+pp-1))\n";
  out << "# order, stage " << v.rank << ":";
  for (const std::string& a : v.order) out << " " << a;
  out << "\n";
}

nlohmann::ordered_json pipeline_json(const WorkloadRequest& q) {
  const PipelineView v = view(q);
  nlohmann::ordered_json j;
  j["pp"] = v.plan.pp;
  j["schedule"] = pipe_schedule_name(v.plan);
  j["micro_batches"] = v.plan.micro_batches;
  j["stage_ranks"] = v.plan.stage_world;
  j["stages"] = nlohmann::ordered_json::array();
  for (const StageRow& r : v.rows)
    j["stages"].push_back({{"stage", r.stage},
                           {"ranks", {r.first_rank, r.last_rank}},
                           {"layers", r.layers},
                           {"modules", r.modules},
                           {"send_bytes_per_micro_batch", r.send_bytes},
                           {"recv_bytes_per_micro_batch", r.recv_bytes},
                           {"idle_fraction", r.idle}});
  j["equal_stages_idle_fraction"] = v.ideal;
  j["order"] = v.order;
  return j;
}

}  // namespace collreplay
