#include "bench/replay/replay_report.hpp"

#include <algorithm>
#include <set>

#include "bench/executor/collective_plan.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "bench/replay/measure/graph_step.hpp"
#include "bench/replay/op_line_rate.hpp"
#include "collectives/ops/op_registry.hpp"
#include "common/sizes.hpp"
#include "workloads/model/gemm_slices.hpp"
#include "workloads/p2p_batches.hpp"
#include "workloads/plan/parallel/mesh.hpp"

namespace collreplay {
namespace {

// The op's group size: measured for the kinds, the op's own for a strided group (its split
// checked it).
int group_size_of(const ReplayMeasurements& m, const CollectiveOp& c) {
  return c.group == GroupKind::strided ? c.group_size
                                       : m.group_sizes.at(static_cast<std::size_t>(c.group));
}

// The collective op i's bandwidths in its comm-only time, by the op's own bus-bytes rule
// (collectives/ops/op_spec.hpp): the busiest rank's, gathered by the measure step, else the
// spec's rule for the op's size and group.
struct OpBandwidth {
  double algbw_GBps = 0, busbw_GBps = 0;
  double bus_bytes = 0, seconds = 0;
};
OpBandwidth bandwidth_of(const ReplayMeasurements& m, std::size_t i, const CollectiveOp& c) {
  const double seconds = m.op_times.comm_only_ms[i] * 1e-3;
  OpLayout group;
  group.ranks = group_size_of(m, c);
  const double bus_bytes = i < m.bus_bytes.size() && m.bus_bytes[i] > 0
                               ? m.bus_bytes[i]
                               : op_spec(c.kind).bus_bytes(c.bytes, group, c.dtype);
  return {algbw_GBps(static_cast<double>(c.bytes), seconds), busbw_GBps(bus_bytes, seconds),
          bus_bytes, seconds};
}

std::optional<LineRateVerdict> line_rate_of(const ReplayMeasurements& m, std::size_t i) {
  const ScheduleOp& op = m.schedule->ops[i];
  if (!m.node_links || !op.is_collective()) return std::nullopt;
  const OpBandwidth bw = bandwidth_of(m, i, op.collective());
  return replay_op_line_rate(*m.schedule, op, *m.node_links, bw.bus_bytes, bw.seconds);
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json stat_json(const CrossRankStat& s, const ReplayMeasurements& m) {
  return {{"max", s.max},
          {"median", s.median},
          {"min", s.min},
          {"slowest_rank", s.slowest_rank},
          {"slowest_host", m.hosts.at(s.slowest_rank)},
          {"slowest_device", m.devices.at(s.slowest_rank)}};
}

nlohmann::json optional_text_json(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

std::string optional_text(const std::optional<double>& value, const char* format,
                          double factor = 1) {
  if (!value) return "-";
  char text[64];
  std::snprintf(text, sizeof text, format, *value * factor);
  return text;
}

// Decoder layers the schedule runs (the reference records its --layers the same way).
int layers_of(const Schedule& s) {
  std::set<int> layers;
  for (const ScheduleOp& op : s.ops)
    if (op.layer >= 0) layers.insert(op.layer);
  return static_cast<int>(layers.size());
}

// One record per op: its passes' times across ranks, its timeline, and for a collective its
// bandwidths, for a compute op its work and headroom.
nlohmann::json op_record(const ReplayMeasurements& m, std::size_t i) {
  const Schedule& s = *m.schedule;
  const ScheduleOp& op = s.ops[i];
  nlohmann::json r = {{"record", "op"},
                      {"op", i},
                      {"name", op.name},
                      {"unit", op.unit},
                      {"layer", op.layer},
                      {"phase", phase_name(op.phase)},
                      {"stream", op.is_collective() ? "comm" : "compute"},
                      {"hides_behind", op.hides_behind},
                      {"overlapped_ms", stat_json(pass_of(m, PassKind::overlapped).op_ms[i], m)}};
  // Timeline (overlapped pass): the slowest rank's median step, ms from that step's start.
  const PassSummary& overlapped = pass_of(m, PassKind::overlapped);
  if (i < overlapped.op_start_ms.size())
    r.update({{"start_ms", overlapped.op_start_ms[i]}, {"end_ms", overlapped.op_end_ms[i]}});
  if (op.is_collective()) {
    const CollectiveOp& c = op.collective();
    const int n = group_size_of(m, c);
    const OpBandwidth bw = bandwidth_of(m, i, c);
    r.update({{"kind", collective_kind_name(c.kind)},
              {"group", group_kind_name(c.group)},
              {"group_size", n},
              {"dtype", dtype_name(c.dtype)},
              {"bytes", c.bytes},
              {"comm_only_ms", stat_json(pass_of(m, PassKind::comm_only).op_ms[i], m)},
              {"algbw_GBps", bw.algbw_GBps},
              {"busbw_GBps", bw.busbw_GBps}});
    if (c.group == GroupKind::strided) r["group_stride"] = c.group_stride;
    if (op_spec(c.kind).has_root()) r["root"] = c.root;
    if (op_spec(c.kind).needs_partner()) r["peer"] = c.peer;
    if (const std::optional<LineRateVerdict> v = line_rate_of(m, i)) write_line_rate(r, *v);
  } else {
    const double flops = gemm_flops(op.compute().gemms);
    const double t_ms = m.op_times.compute_only_ms[i];
    std::uint64_t kernel_bytes = 0, kernel_launches = 0;
    for (const KernelSlice& k : op.compute().kernels) {
      kernel_bytes += k.read_bytes + k.write_bytes;
      kernel_launches += k.launches;
    }
    r.update({{"gemms", op.compute().gemms.size()},
              {"flops", flops},
              {"kernel_launches", kernel_launches},
              {"kernel_bytes", kernel_bytes},
              {"host_us", op.compute().host_us},
              {"compute_only_ms", stat_json(pass_of(m, PassKind::compute_only).op_ms[i], m)},
              {"tflops", t_ms > 0 ? flops * m.compute_scale / (t_ms * 1e9) : 0.0}});
    for (const OpHeadroom& h : m.op_headroom)
      if (h.op == static_cast<int>(i))
        r.update({{"compute_ms", h.compute_ms},
                  {"comm_ms", h.comm_ms},
                  {"headroom_ms", h.headroom_ms},
                  {"headroom_ratio", optional_json(h.headroom_ratio)}});
  }
  return r;
}

// How the schedule runs a MoE model's experts: "grouped" (grouped GEMMs), "looped" (GEMMs of
// the experts' modules one by one), null without experts (a dense model, an imported trace).
nlohmann::json experts_of(const Schedule& s) {
  bool looped = false;
  for (const ScheduleOp& op : s.ops)
    if (!op.is_collective())
      for (const GemmShape& g : op.compute().gemms) {
        if (!g.group_rows.empty()) return "grouped";
        looped = looped || g.label.find(".experts") != std::string::npos;
      }
  return looped ? nlohmann::json("looped") : nlohmann::json(nullptr);
}

// The step's record: the schedule it ran, the passes, the step's headroom and the run's checks.
nlohmann::json step_record(const ReplayMeasurements& m, const nlohmann::json& run) {
  const Schedule& s = *m.schedule;
  nlohmann::json passes = nlohmann::json::object();
  for (const PassSummary& p : m.passes)
    passes[std::string(pass_name(p.pass))] = {{"step_ms", p.step_ms},
                                              {"step_samples_ms", p.step_samples_ms},
                                              {"steps", p.steps},
                                              {"spread", p.spread},
                                              {"stable", p.stable},
                                              {"rank_step_ms", stat_json(p.rank_step_ms, m)}};
  const StepHeadroom& st = m.step;
  return {{"record", "step"},
          {"model", s.model},
          {"plan", s.plan},
          {"wrap", s.wrap},
          {"world", m.world},
          {"nodes", m.nodes},
          {"ep", s.ep},
          {"tp", s.tp},
          {"shard_group", mesh_layout(s).shard()},
          {"layers", layers_of(s)},
          {"optimizer", optional_text_json(m.optimizer)},
          {"optimizer_asked", optional_text_json(m.optimizer_asked)},
          {"experts", experts_of(s)},
          {"micro_batch", s.micro_batch},
          {"seq", s.seq},
          {"micro_batches", s.micro_batches},
          {"pp", pipeline_place(s).stages},
          {"tokens_per_step", s.tokens_per_step},
          {"compute_ms", st.compute_ms},
          {"comm_ms", st.comm_ms},
          {"overlapped_ms", st.overlapped_ms},
          {"exposed_comm_ms", st.exposed_comm_ms},
          {"fwd_bwd_ms", st.fwd_bwd_ms},
          {"optimizer_ms", st.optimizer_ms},
          {"overlap_efficiency", optional_json(st.overlap_efficiency)},
          {"compute_slowdown", optional_json(st.compute_slowdown)},
          {"tokens_per_s", optional_json(st.tokens_per_s)},
          {"mfu", optional_json(st.mfu)},
          {"mfu_compute_only", optional_json(st.mfu_compute_only)},
          {"hfu", optional_json(st.hfu)},
          {"hfu_compute_only", optional_json(st.hfu_compute_only)},
          {"flops_per_step", optional_json(m.flops_per_step)},
          {"model_flops_per_step", optional_json(m.model_flops_per_step)},
          {"tflops_per_rank",
           optional_json(tflops_per_s(m.model_flops_per_step, st.overlapped_ms))},
          {"peak_tflops", optional_json(m.peak_tflops)},
          {"peak_source", m.peak_source},
          {"compute_scale", m.compute_scale},
          {"compute_engine", m.engine},
          {"backend", m.backend},
          {"transport", m.transport},
          {"collective_buffer_bytes", m.collective_buffer_bytes},
          {"compute_buffer_bytes", m.compute_buffer_bytes},
          {"passes", passes},
          {"comm_only_graph_ms", optional_json(m.comm_only_graph_ms)},
          {"graph_launches", m.graph_launches},
          {"launch_cost_us_per_collective", optional_json(launch_cost_us_per_collective(m))},
          {"rank_step_ms_all", pass_of(m, PassKind::overlapped).rank_step_ms_all},
          {"sanity_ok", m.sanity_problems.empty()},
          {"sanity_problems", m.sanity_problems},
          {"run", run}};
}

}  // namespace

const PassSummary& pass_of(const ReplayMeasurements& m, PassKind pass) {
  return m.passes[static_cast<std::size_t>(pass)];
}

std::vector<nlohmann::json> replay_records(const ReplayMeasurements& m, const nlohmann::json& run) {
  std::vector<nlohmann::json> records;
  for (std::size_t i = 0; i < m.schedule->ops.size(); ++i) {
    nlohmann::json r = op_record(m, i);
    r["run"] = run;
    records.push_back(std::move(r));
  }
  for (const UnitHeadroom& u : m.units)
    records.push_back({{"record", "unit"},
                       {"unit", u.unit},
                       {"compute_ms", u.compute_ms},
                       {"comm_ms", u.comm_ms},
                       {"exposed_by_design_ms", u.exposed_by_design_ms},
                       {"headroom_ms", u.headroom_ms},
                       {"headroom_ratio", optional_json(u.headroom_ratio)},
                       {"run", run}});

  records.push_back(step_record(m, run));
  return records;
}

std::optional<double> launch_cost_us_per_collective(const ReplayMeasurements& m) {
  const int collectives = collectives_per_step(*m.schedule);
  if (!m.comm_only_graph_ms || collectives == 0) return std::nullopt;
  return (pass_of(m, PassKind::comm_only).step_ms - *m.comm_only_graph_ms) * 1e3 / collectives;
}

void print_replay_table(const ReplayMeasurements& m, std::FILE* out) {
  const Schedule& s = *m.schedule;
  std::fprintf(
      out, "# collreplay replay: %s %s/%s, world %d on %d node(s), micro-batch %lld x seq %lld\n",
      s.model.c_str(), s.plan.c_str(), s.wrap.c_str(), m.world, m.nodes,
      static_cast<long long>(s.micro_batch), static_cast<long long>(s.seq));
  std::fprintf(out, "# backend %s over %s; compute: %s, scale %.3f\n", m.backend.c_str(),
               m.transport.c_str(), m.engine.c_str(), m.compute_scale);
  if (!m.optimizer.empty())
    std::fprintf(out, "# optimizer: %s (%s)\n", m.optimizer.c_str(), m.optimizer_why.c_str());
  if (!m.host_time_source.empty())
    std::fprintf(out, "# host time per launch: %s\n", m.host_time_source.c_str());
  std::fprintf(out, "# memory per rank (largest): collective buffers %s, GEMM operands %s\n",
               format_bytes(m.collective_buffer_bytes).c_str(),
               format_bytes(m.compute_buffer_bytes).c_str());
  std::fprintf(out, "#\n# collectives, comm-only pass (slowest rank's median)\n");
  std::fprintf(out, "# %-28s %-14s %-13s %12s %10s %9s %9s\n", "op", "kind", "group", "size",
               "time(us)", "algbw", "busbw");
  int judged = 0, above = 0;
  for (std::size_t i = 0; i < s.ops.size(); ++i) {
    const ScheduleOp& op = s.ops[i];
    if (!op.is_collective()) continue;
    const CollectiveOp& c = op.collective();
    const OpBandwidth bw = bandwidth_of(m, i, c);
    std::fprintf(out, "  %-28s %-14s %-13s %12llu %10.1f %9.2f %9.2f\n", op.name.c_str(),
                 std::string(collective_kind_name(c.kind)).c_str(), group_label(c).c_str(),
                 static_cast<unsigned long long>(c.bytes), m.op_times.comm_only_ms[i] * 1e3,
                 bw.algbw_GBps, bw.busbw_GBps);
    const std::optional<LineRateVerdict> v = line_rate_of(m, i);
    judged += v ? 1 : 0;
    above += v && v->above ? 1 : 0;
  }
  if (m.node_links && above > 0)
    std::fprintf(out, "# %s\n", line_rate_note(above, judged, *m.node_links).c_str());
  std::fprintf(out,
               "#\n# headroom per unit (ms; comm = what must hide behind the unit's compute)\n");
  std::fprintf(out, "# %-20s %11s %11s %12s %8s %12s\n", "unit", "compute_ms", "comm_ms",
               "headroom_ms", "ratio", "exposed_ms");
  for (const UnitHeadroom& u : m.units)
    std::fprintf(out, "  %-20s %11.3f %11.3f %12.3f %8s %12.3f\n", u.unit.c_str(), u.compute_ms,
                 u.comm_ms, u.headroom_ms, optional_text(u.headroom_ratio, "%.3f").c_str(),
                 u.exposed_by_design_ms);
  const StepHeadroom& st = m.step;
  std::fprintf(out, "#\n# step (ms)  compute %.3f  comm %.3f  overlapped %.3f  exposed_comm %.3f\n",
               st.compute_ms, st.comm_ms, st.overlapped_ms, st.exposed_comm_ms);
  std::fprintf(out, "#   fwd+bwd %.3f  optimizer %.3f (in every step time)\n", st.fwd_bwd_ms,
               st.optimizer_ms);
  if (const int stages = pipeline_place(*m.schedule).stages; stages > 1)
    std::fprintf(out, "#   pipeline of %d stages: exposed_comm holds the bubble (the overlapped "
                      "step waits for the other stages; the compute-only pass does not)\n",
                 stages);
  std::fprintf(out, "#   overlap_efficiency %s  compute_slowdown %s  tokens/s %s\n",
               optional_text(st.overlap_efficiency, "%.3f").c_str(),
               optional_text(st.compute_slowdown, "%.3f").c_str(),
               optional_text(st.tokens_per_s, "%.0f").c_str());
  std::fprintf(out,
               "#   %s TFLOP/s per rank  mfu %s (model FLOPs; compute-only %s)  hfu %s (with "
               "recompute; compute-only %s)  peak %s TFLOP/s, %s\n",
               figure_text(tflops_per_s(m.model_flops_per_step, st.overlapped_ms), "%.3g").c_str(),
               optional_text(st.mfu, "%.1f%%", 100).c_str(),
               optional_text(st.mfu_compute_only, "%.1f%%", 100).c_str(),
               optional_text(st.hfu, "%.1f%%", 100).c_str(),
               optional_text(st.hfu_compute_only, "%.1f%%", 100).c_str(),
               optional_text(m.peak_tflops, "%.3g").c_str(), m.peak_source.c_str());
  if (m.comm_only_graph_ms)
    std::fprintf(out,
                 "#   -G %d: comm-only step as one CUDA graph %.3f ms (op by op %.3f ms): launch "
                 "cost %s us per collective (%d collectives)\n",
                 m.graph_launches, *m.comm_only_graph_ms, pass_of(m, PassKind::comm_only).step_ms,
                 optional_text(launch_cost_us_per_collective(m), "%.2f").c_str(),
                 collectives_per_step(*m.schedule));
  std::fprintf(out, "#\n# straggler view: each rank's median step (ms)\n");
  std::fprintf(out, "# %-13s %6s %7s %10s %10s %10s  %s\n", "pass", "steps", "spread", "max",
               "median", "min", "slowest rank");
  for (const PassSummary& p : m.passes) {
    const CrossRankStat& r = p.rank_step_ms;
    std::fprintf(out, "  %-13s %6d %6.1f%%%s %10.3f %10.3f %10.3f  %d on %s (%s)\n",
                 std::string(pass_name(p.pass)).c_str(), p.steps, p.spread * 100,
                 p.stable ? "" : "!", r.max, r.median, r.min, r.slowest_rank,
                 m.hosts.at(r.slowest_rank).c_str(), m.devices.at(r.slowest_rank).c_str());
  }
  for (const std::string& problem : m.sanity_problems)
    std::fprintf(out, "# warning: %s\n", problem.c_str());
  std::fflush(out);
}

}  // namespace collreplay
