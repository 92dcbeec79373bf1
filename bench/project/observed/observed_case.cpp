#include "bench/project/observed/observed_case.hpp"

#include <algorithm>
#include <tuple>

#include "bench/project/model/measured_points.hpp"
#include "workloads/plan/schedule_builder.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay::project {

ObservedCase prepare_case(const ObservedRow& row, const WorkloadRequest& plan,
                          const ComputeSource& compute) {
  ObservedCase c;
  c.row = row;
  c.request = plan;
  c.request.model = row.model;
  c.request.micro_batch = row.micro_batch;
  c.request.seq = row.seq;
  c.request.gpus_per_node = row.gpus_per_node;
  c.request.world = row.nodes * row.gpus_per_node;
  c.schedule = build_schedule(c.request);
  c.flops = schedule_totals(c.schedule).flops;
  c.compute_ms.assign(c.schedule.ops.size(), 0.0);
  for (std::size_t i = 0; i < c.schedule.ops.size(); ++i) {
    const ScheduleOp& op = c.schedule.ops[i];
    if (!op.is_collective()) {
      c.compute_ms[i] = compute.op_ms(op);
      c.compute_step_ms += c.compute_ms[i];
      continue;
    }
    const CollectiveOp& coll = op.collective();
    const CollKind kind = cost_class(coll.kind);
    const GroupSpan span = schedule_op_span(c.schedule, coll, row.nodes, row.gpus_per_node);
    const double bytes = static_cast<double>(coll.bytes);
    auto same = [&](const ObservedCase::Collectives& g) {
      return std::tie(g.kind, g.bytes, g.span.ranks, g.span.nodes) ==
             std::tie(kind, bytes, span.ranks, span.nodes);
    };
    auto group = std::find_if(c.collectives.begin(), c.collectives.end(), same);
    if (group == c.collectives.end())
      group = c.collectives.insert(c.collectives.end(), {kind, bytes, span, {}});
    group->ops.push_back(i);
  }
  c.observed_step_ms =
      static_cast<double>(c.schedule.tokens_per_step) / row.tokens_per_s_per_gpu * 1e3;
  return c;
}

double case_step_ms(const ObservedCase& c, const FabricModel& model, const StepTerms& terms,
                    NormalMaxima& maxima) {
  std::vector<double> op_ms(c.compute_ms.size());
  const double multiplier = compute_factor(terms, c.schedule.world, maxima);
  for (std::size_t i = 0; i < op_ms.size(); ++i) op_ms[i] = c.compute_ms[i] * multiplier;
  for (const ObservedCase::Collectives& g : c.collectives) {
    const double ms = collective_ms(g.kind, g.bytes, g.span, model, terms, maxima);
    for (std::size_t i : g.ops) op_ms[i] = ms;
  }
  return overlapped_step_ms(c.schedule, op_ms, terms);
}

double tokens_per_s_per_gpu(const ObservedCase& c, double step_ms) {
  return step_ms > 0 ? static_cast<double>(c.schedule.tokens_per_step) / step_ms * 1e3 : 0;
}

}  // namespace collreplay::project
