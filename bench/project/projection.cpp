#include "bench/project/projection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "bench/executor/group_key.hpp"
#include "bench/project/model/measured_points.hpp"
#include "bench/project/model/step_sim.hpp"
#include "bench/project/pipeline/pipeline_projection.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "bench/replay/headroom.hpp"
#include "common/errors.hpp"
#include "workloads/plan/pipeline/pipeline_plan.hpp"
#include "workloads/trace/trace_import.hpp"
#include "workloads/schedule_summary.hpp"

namespace collreplay::project {
namespace {

std::vector<double> scaled_comm(const Schedule& s, std::vector<double> op_ms, double factor) {
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].is_collective()) op_ms[i] *= factor;
  return op_ms;
}

// op_ms with the collectives that `free` picks taking no time.
template <typename Pick>
std::vector<double> freed(const Schedule& s, std::vector<double> op_ms, Pick free) {
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].is_collective() && free(i)) op_ms[i] = 0;
  return op_ms;
}

// What each process group's collectives, the decoder layers' critical-path ones, and those that
// cross nodes add to the step: the step less the step with them free.
void attribute_exposure(const Schedule& s, const std::vector<double>& op_ms,
                        const std::vector<bool>& crosses_nodes, const StepTerms& terms,
                        ProjectionRow& row) {
  const std::vector<int> streams = op_streams(s);
  const auto step_without = [&](auto free) {
    return overlapped_step_ms(s, freed(s, op_ms, free), terms);
  };
  std::map<int, std::string> labels;
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].is_collective())
      labels.emplace(streams[i], group_key_label(group_key(s.ops[i].collective())));
  for (const auto& [stream, label] : labels)
    row.exposed_by_group_ms[label] =
        row.step_ms - step_without([&](std::size_t i) { return streams[i] == stream; });
  // A schedule without decoder layers (an imported trace) has no first gather to set apart: every
  // collective that hides behind nothing is on the critical path.
  const bool layered = std::any_of(s.ops.begin(), s.ops.end(),
                                   [](const ScheduleOp& op) { return op.layer >= 0; });
  const auto critical = [&](std::size_t i) {
    return s.ops[i].hides_behind < 0 && (s.ops[i].layer >= 0 || !layered);
  };
  row.critical_exposed_ms = row.step_ms - step_without(critical);
  const double without_crossing = step_without([&](std::size_t i) { return crosses_nodes[i]; });
  row.fabric_exposed_ms = row.step_ms - without_crossing;
  row.layout_exposed_ms = without_crossing - row.compute_step_ms;
  row.critical_fabric_exposed_ms =
      row.step_ms - step_without([&](std::size_t i) { return crosses_nodes[i] && critical(i); });
}

}  // namespace

ProjectionRow project_nodes(const ProjectionInputs& in, int nodes) {
  const int g = in.request.gpus_per_node;
  if (nodes < 1 || g < 1) throw UsageError("node counts and GPUs per node must be positive");
  WorkloadRequest request = in.request;
  request.world = nodes * g;
  NormalMaxima maxima;
  if (in.traced_ranks <= 1)
    return project_schedule(in, schedule_for_request(request), nodes, maxima);
  // A trace per rank: each rank's own step (a pipeline's last stage holds the loss), and the
  // job's is the slowest's, as the others wait for it.
  ProjectionRow slowest;
  for (request.rank = 0; request.rank < in.traced_ranks; ++request.rank) {
    ProjectionRow row = project_schedule(in, schedule_for_request(request), nodes, maxima);
    if (request.rank == 0 || row.step_ms > slowest.step_ms) slowest = std::move(row);
  }
  return slowest;
}

void set_median_layer(ProjectionRow& row, double ratio_lo, double ratio_hi) {
  // Per decoder layer (a layer may hold several units: submodule wrapping).
  std::map<int, UnitProjection> layers;
  for (const UnitProjection& u : row.units) {
    if (u.layer < 0) continue;
    UnitProjection& l = layers[u.layer];
    l.layer = u.layer;
    l.comm_ms += u.comm_ms;
    l.compute_ms += u.compute_ms;
    l.headroom_ms += u.headroom_ms;
  }
  if (layers.empty()) return;
  std::vector<UnitProjection> sorted;
  for (const auto& [index, l] : layers) sorted.push_back(l);
  std::sort(sorted.begin(), sorted.end(), [](const UnitProjection& a, const UnitProjection& b) {
    return a.headroom_ms < b.headroom_ms;
  });
  const UnitProjection& median = sorted[(sorted.size() - 1) / 2];
  row.median_layer = median.layer;
  row.layer_comm_ms = median.comm_ms;
  row.layer_compute_ms = median.compute_ms;
  row.headroom_ms = median.headroom_ms;
  row.headroom_lo_ms = median.compute_ms - median.comm_ms * ratio_hi;
  row.headroom_hi_ms = median.compute_ms - median.comm_ms * ratio_lo;
}

ProjectionRow project_schedule(const ProjectionInputs& in, const Schedule& s, int nodes,
                               NormalMaxima& maxima) {
  if (pipelined(in.request)) return project_pipeline(in, s, nodes, maxima);
  return project_rank(in, s, nodes, maxima);
}

ProjectionRow project_rank(const ProjectionInputs& in, const Schedule& s, int nodes,
                           NormalMaxima& maxima, RankOpTimes* detail) {
  const int g = in.request.gpus_per_node;
  ProjectionRow row;
  row.nodes = nodes;
  row.world = s.world;
  if (in.memory) {
    row.memory = memory_per_gpu(s, in.memory->model, in.request, in.memory->states);
    const MemoryFit fit = memory_fit(*row.memory, in.memory->budget);
    row.fits = fit != MemoryFit::no_fit;
    row.memory_tight = fit == MemoryFit::tight;
    if (!row.fits && !in.simulate_unfit && !detail) return row;
  }
  OpTimes times;
  times.compute_only_ms.assign(s.ops.size(), 0.0);
  times.comm_only_ms.assign(s.ops.size(), 0.0);
  std::vector<double> op_ms(s.ops.size(), 0.0);
  std::vector<bool> crosses_nodes(s.ops.size(), false);
  std::map<std::string, double> largest;
  std::map<std::string, int> layer_of_unit;
  // Compute at the modelled speed, then the slowest of the step's ranks (step_terms.hpp).
  const double compute_multiplier = compute_factor(in.terms, s.world, maxima);
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& op = s.ops[i];
    layer_of_unit.emplace(op.unit, op.layer);
    if (!op.is_collective()) {
      op_ms[i] = times.compute_only_ms[i] = in.compute.op_ms(op) * compute_multiplier;
      row.compute_step_ms += op_ms[i];
      continue;
    }
    const CollectiveOp& c = op.collective();
    const CollKind kind = cost_class(c.kind);
    const GroupSpan span = schedule_op_span(s, c, nodes, g);
    crosses_nodes[i] = span.nodes > 1;
    Algo algo = Algo::ring;
    op_ms[i] = times.comm_only_ms[i] =
        collective_ms(kind, static_cast<double>(c.bytes), span, in.model, in.terms, maxima, &algo);
    row.comm_step_ms += op_ms[i];
    const std::string name(coll_kind_name(kind));
    if (!largest.count(name) || static_cast<double>(c.bytes) > largest[name]) {
      largest[name] = static_cast<double>(c.bytes);
      row.algorithms[name] = std::string(algo_name(algo));
    }
  }

  for (const UnitHeadroom& u : unit_headroom(s, times)) {
    const int layer = layer_of_unit.count(u.unit) ? layer_of_unit[u.unit] : -1;
    row.units.push_back({u.unit, layer, u.comm_ms, u.compute_ms, u.headroom_ms});
  }
  set_median_layer(row, in.ratio_lo, in.ratio_hi);
  for (std::size_t i = 0; i < s.ops.size(); ++i)
    row.median_layer_crosses_nodes |= s.ops[i].layer == row.median_layer && crosses_nodes[i];

  row.optimizer_ms = optimizer_phase_ms(s, op_ms);
  const auto step_ms = [&](double comm_factor) {
    return overlapped_step_ms(s, scaled_comm(s, op_ms, comm_factor), in.terms);
  };
  row.step_ms = step_ms(1);
  row.exposed_comm_ms = row.step_ms - row.compute_step_ms;
  row.exposed_lo_ms = step_ms(in.ratio_lo) - row.compute_step_ms;
  row.exposed_hi_ms = step_ms(in.ratio_hi) - row.compute_step_ms;
  // With `detail` the caller runs the step with others (a pipeline's stages) and attributes it.
  if (detail)
    *detail = {op_ms, crosses_nodes};
  else if (in.attribute_exposure)
    attribute_exposure(s, op_ms, crosses_nodes, in.terms, row);
  if (row.step_ms > 0) {
    row.tokens_per_s = static_cast<double>(s.tokens_per_step) * row.world / (row.step_ms / 1e3);
    row.tokens_per_s_per_gpu = row.tokens_per_s / row.world;
  }
  // What the hardware ran: the schedule's GEMMs, or a trace's FLOPs (unknown without shapes).
  const StepFlops flops =
      in.request.trace.empty() ? schedule_step_flops(s) : traced_step_flops(in.traced_flops);
  row.tflops_per_gpu = tflops_per_s(flops.hardware, row.step_ms);
  row.mfu = flops_utilization(flops.hardware, row.step_ms, in.compute.peak_tflops);
  return row;
}

}  // namespace collreplay::project
