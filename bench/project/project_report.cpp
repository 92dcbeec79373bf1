#include "bench/project/project_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "bench/project/memory/gpu_memory.hpp"
#include "bench/replay/flops/step_flops.hpp"

namespace collreplay::project {
namespace {

using nlohmann::json;

std::string fmt(const char* format, double value) { return format_value(format, value); }

std::string size_text(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return fmt(bytes < 10 ? "%.2f" : "%.1f", bytes) + " " + units[u];
}

std::string tier_text(const TierParams& t) {
  std::string text = "alpha " + fmt("%.3g", t.alpha_us) + " us, bandwidth " +
                     fmt("%.4g", t.bw_gbyte_s) + " GB/s (" + fmt("%.4g", t.bw_gbyte_s * 8) +
                     " Gbit/s)";
  if (t.half_bytes > 0)
    text += ", efficiency 1/2 at " + size_text(t.half_bytes) + " chunks, steepness " +
            fmt("%.2g", t.gamma);
  return text;
}

struct LevelStats {
  int count = 0;
  double max_abs = 0, sum_abs = 0;
};

std::map<std::string, LevelStats> level_stats(const ValidationReport& r) {
  std::map<std::string, LevelStats> stats;
  for (const ValidationRow& row : r.rows) {
    LevelStats& s = stats[row.level];
    ++s.count;
    s.max_abs = std::max(s.max_abs, std::fabs(row.error()));
    s.sum_abs += std::fabs(row.error());
  }
  return stats;
}

}  // namespace

std::string format_value(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

json tier_json(const TierParams& t) {
  return {{"alpha_us", t.alpha_us},
          {"bw_gbyte_s", t.bw_gbyte_s},
          {"bw_gbit_s", t.bw_gbyte_s * 8},
          {"efficiency_half_bytes", t.half_bytes},
          {"efficiency_gamma", t.gamma}};
}

json fit_json(const FitReport& fit, const std::string& source) {
  json points = json::array();
  for (const FittedPoint& f : fit.points)
    points.push_back({{"op", coll_kind_name(f.point.kind)},
                      {"bytes", f.point.bytes},
                      {"ranks", f.point.span.ranks},
                      {"nodes", f.point.span.nodes},
                      {"source", f.point.source},
                      {"algo", algo_name(f.algo)},
                      {"algo_reported", f.algo_was_reported},
                      {"measured_us", f.point.time_us},
                      {"predicted_us", f.predicted_us}});
  return {{"record", "fit"},
          {"source", source},
          {"base_us", fit.model.base_us},
          {"intra", tier_json(fit.model.intra)},
          {"intra_fitted", fit.intra_fitted},
          {"inter", tier_json(fit.model.inter)},
          {"links", fit.model.links},
          {"node_counts", fit.node_counts},
          {"intra_points", fit.intra_points},
          {"inter_points", fit.inter_points},
          {"pat_allowed", fit.model.pat_allowed},
          {"tree_allowed", fit.model.tree_allowed},
          {"ratio_lo", fit.ratio_lo},
          {"ratio_hi", fit.ratio_hi},
          {"notes", fit.notes},
          {"points", points}};
}

void print_fit(const FitReport& fit, const std::string& source, std::ostream& out) {
  std::string counts;
  for (int c : fit.node_counts) counts += (counts.empty() ? "" : ",") + std::to_string(c);
  out << "# fit of " << source << ": " << fit.intra_points << " intra-node and " << fit.inter_points
      << " inter-node points at node counts " << counts << "\n";
  if (fit.intra_fitted || fit.model.intra.bw_gbyte_s > 0)
    out << "#   intra " << (fit.intra_fitted ? "(fitted)" : "(given)") << ": "
        << tier_text(fit.model.intra) << "\n";
  else
    out << "#   intra: none (one rank per node)\n";
  out << "#   base latency per collective: " << fmt("%.3g", fit.model.base_us) << " us\n";
  out << "#   inter " << (fit.inter_points > 0 ? "(fitted)" : "(profile)") << ": "
      << tier_text(fit.model.inter) << "\n";
  out << "#   measured/predicted 10th-90th percentile: " << fmt("%.3f", fit.ratio_lo) << " - "
      << fmt("%.3f", fit.ratio_hi) << " (the band)\n";
  for (const std::string& note : fit.notes) out << "#   note: " << note << "\n";
}

json projection_json(const ProjectionRow& row, const ProjectionLabels& l,
                     const std::optional<TippingPoint>& tip) {
  json units = json::array();
  for (const UnitProjection& u : row.units)
    units.push_back({{"unit", u.unit},
                     {"layer", u.layer},
                     {"comm_ms", u.comm_ms},
                     {"compute_ms", u.compute_ms},
                     {"headroom_ms", u.headroom_ms}});
  json record = {{"record", "projection"},
          {"source", "projected"},
          {"model", l.model},
          {"fabric", l.fabric},
          {"fabric_source", l.fabric_source},
          {"micro_batch", l.micro_batch},
          {"seq", l.seq},
          {"ep", l.ep},
          {"intra", l.intra},
          {"gpus_per_node", l.gpus_per_node},
          {"nodes", row.nodes},
          {"world", row.world},
          {"compute", l.compute},
          {"median_layer", row.median_layer},
          {"layer_comm_ms", row.layer_comm_ms},
          {"layer_compute_ms", row.layer_compute_ms},
          {"headroom_ms", row.headroom_ms},
          {"headroom_lo_ms", row.headroom_lo_ms},
          {"headroom_hi_ms", row.headroom_hi_ms},
          {"compute_step_ms", row.compute_step_ms},
          {"comm_step_ms", row.comm_step_ms},
          {"step_ms", row.step_ms},
          {"exposed_comm_ms", row.exposed_comm_ms},
          {"exposed_comm_lo_ms", row.exposed_lo_ms},
          {"exposed_comm_hi_ms", row.exposed_hi_ms},
          // A step that does not fit in memory has no throughput to quote.
          {"tokens_per_s", row.fits ? json(row.tokens_per_s) : json(nullptr)},
          {"tokens_per_s_per_gpu", row.fits ? json(row.tokens_per_s_per_gpu) : json(nullptr)},
          {"tokens_per_s_per_gpu_lo", row.fits ? json(row.tokens_per_s_per_gpu_lo) : json(nullptr)},
          {"tokens_per_s_per_gpu_hi", row.fits ? json(row.tokens_per_s_per_gpu_hi) : json(nullptr)},
          {"per_gpu_vs_first", row.fits ? json(row.per_gpu_vs_first) : json(nullptr)},
          {"per_gpu_vs_first_nodes", row.first_nodes},
          {"per_gpu_vs_first_lo", row.fits ? json(row.per_gpu_vs_first_lo) : json(nullptr)},
          {"per_gpu_vs_first_hi", row.fits ? json(row.per_gpu_vs_first_hi) : json(nullptr)},
          {"fits", row.fits},
          {"memory_tight", row.memory_tight},
          {"memory_per_gpu_bytes", row.memory ? json(row.memory->total_bytes()) : json(nullptr)},
          // What the caching allocator reserves at its measured low and high slack.
          {"memory_reserved_lo_bytes",
           row.memory ? json(row.memory->reserved_bytes(kSlackLow)) : json(nullptr)},
          {"memory_reserved_hi_bytes",
           row.memory ? json(row.memory->reserved_bytes(kSlackHigh)) : json(nullptr)},
          {"exposed_by_group_ms", row.exposed_by_group_ms},
          {"critical_exposed_ms", row.critical_exposed_ms},
          {"optimizer_ms", row.optimizer_ms},
          {"pipeline_wait_ms", row.pipeline_wait_ms ? json(*row.pipeline_wait_ms) : json(nullptr)},
          {"tflops_per_gpu", row.tflops_per_gpu ? json(*row.tflops_per_gpu) : json(nullptr)},
          {"mfu", row.mfu ? json(*row.mfu) : json(nullptr)},
          {"algorithms", row.algorithms},
          {"fabric_exposed_ms", row.fabric_exposed_ms},
          {"critical_fabric_exposed_ms", row.critical_fabric_exposed_ms},
          {"layout_exposed_ms", row.layout_exposed_ms},
          {"units", units}};
  record.update(tipping_json(tip));
  return record;
}

void print_projection(const std::vector<ProjectionRow>& rows, const ProjectionLabels& l,
                      const std::optional<TippingPoint>& tip, std::ostream& out) {
  out << "# projection: " << l.model << ", " << l.gpus_per_node << " GPUs/node, fabric " << l.fabric
      << (l.fabric_source == "profile" || l.fabric_source == l.fabric
              ? ""
              : " (" + l.fabric_source + ")")
      << ", intra " << l.intra << ", compute " << l.compute << "\n";
  if (!l.memory.empty()) out << "# memory per GPU: " << l.memory << "\n";
  if (!l.interval.empty()) out << "# intervals: " << l.interval << "\n";
  out << "# median decoder layer: comm and compute in ms, headroom = compute - comm [band]; step "
         "and exposed comm per step in ms; critical: exposed by collectives nothing hides; "
         "tok/s/GPU and vs_first (per GPU against the first row) with their intervals\n";
  char line[512];
  std::snprintf(line, sizeof line,
                "%7s %7s %10s %10s %10s %21s %10s %10s %9s %13s %8s %6s %8s %10s %17s %8s %15s  "
                "%s\n",
                "nodes", "world", "layer_comm", "layer_comp", "headroom", "[lo, hi]", "step",
                "exposed", "critical", "tokens/s", "TFLOP/s", "MFU", "mem_GiB", "tok/s/GPU",
                "[lo, hi]", "vs_first", "[lo, hi]", "algorithms");
  out << line;
  for (const ProjectionRow& r : rows) {
    std::string algos;
    for (const auto& [kind, algo] : r.algorithms)
      algos += (algos.empty() ? "" : " ") + kind + ":" + algo;
    const std::string band =
        "[" + fmt("%.2f", r.headroom_lo_ms) + ", " + fmt("%.2f", r.headroom_hi_ms) + "]";
    const std::string memory =
        r.memory ? fmt("%.1f", static_cast<double>(r.memory->total_bytes()) / (1ULL << 30)) +
                       (r.memory_tight ? "*" : "")
                 : "-";
    // Without decoder layers (a trace) there is no median layer to speak of.
    const bool layer = r.median_layer >= 0;
    const std::string per_gpu = "[" + fmt("%.0f", r.tokens_per_s_per_gpu_lo) + ", " +
                                fmt("%.0f", r.tokens_per_s_per_gpu_hi) + "]";
    const std::string vs_first = "[" + fmt("%.3f", r.per_gpu_vs_first_lo) + ", " +
                                 fmt("%.3f", r.per_gpu_vs_first_hi) + "]";
    std::snprintf(
        line, sizeof line,
        "%7d %7d %10s %10s %10s %21s %10.1f %10.1f %9.1f %13s %8s %6s %8s %10s %17s %8s %15s  %s\n",
        r.nodes, r.world, layer ? fmt("%.2f", r.layer_comm_ms).c_str() : "-",
        layer ? fmt("%.2f", r.layer_compute_ms).c_str() : "-",
        layer ? fmt("%.2f", r.headroom_ms).c_str() : "-", layer ? band.c_str() : "[-, -]",
        r.step_ms, r.exposed_comm_ms, r.critical_exposed_ms,
        r.fits ? fmt("%.0f", r.tokens_per_s).c_str() : "no fit",
        r.fits ? figure_text(r.tflops_per_gpu, "%.1f").c_str() : "-",
        r.fits ? figure_text(r.mfu, "%.1f%%", 100).c_str() : "-", memory.c_str(),
        r.fits ? fmt("%.0f", r.tokens_per_s_per_gpu).c_str() : "-",
        r.fits ? per_gpu.c_str() : "[-, -]", r.fits ? fmt("%.3f", r.per_gpu_vs_first).c_str() : "-",
        r.fits ? vs_first.c_str() : "[-, -]", algos.c_str());
    out << line;
  }
  std::string too_big;
  for (const ProjectionRow& r : rows)
    if (!r.fits)
      too_big += (too_big.empty() ? "" : ", ") + std::to_string(r.nodes) + " (" +
                 gib_text(r.memory->reserved_bytes(kSlackLow)) + ")";
  if (!too_big.empty())
    out << "# does not fit in GPU memory at node count (need per GPU): " << too_big
        << "; their tokens/s read 'no fit'\n";
  std::string tight;
  for (const ProjectionRow& r : rows)
    if (r.memory_tight) tight += (tight.empty() ? "" : ", ") + std::to_string(r.nodes);
  if (!tight.empty())
    out << "# mem_GiB*: tight at node count " << tight << ": fits only if the caching allocator "
        << "reserves near its measured low end for what a step allocates and frees\n";
  std::string waits;
  for (const ProjectionRow& r : rows)
    if (r.pipeline_wait_ms)
      waits += (waits.empty() ? "" : ", ") + fmt("%.1f", *r.pipeline_wait_ms) + " at " +
               std::to_string(r.nodes);
  if (!waits.empty())
    out << "# pipeline: the stages run together wait (bubble and sends) ms longer than the "
           "slowest stage alone: " << waits << " nodes\n";
  out << "# tipping point: " << tipping_text(tip) << "\n";
  if (const std::string cost = layout_cost_text(rows); !cost.empty()) out << "# " << cost << "\n";
}

std::vector<json> validation_json(const ValidationReport& r, const std::string& source) {
  std::vector<json> records{fit_json(r.fit, source)};
  for (const ValidationRow& row : r.rows) {
    json j = {{"record", "validation"},
              {"level", row.level},
              {"name", row.name},
              {"source", row.source},
              {"held_out_nodes", r.held_out_nodes},
              {"measured_ms", row.measured_ms},
              {"predicted_ms", row.predicted_ms},
              {"error_pct", row.error() * 100}};
    if (row.level == "collective")
      j.update({{"bytes", row.bytes},
                {"ranks", row.span.ranks},
                {"nodes", row.span.nodes},
                {"algo", row.algo}});
    records.push_back(j);
  }
  json summary = {{"record", "validation_summary"},
                  {"source", source},
                  {"held_out_nodes", r.held_out_nodes},
                  {"fit_node_counts", r.fit.node_counts}};
  for (const auto& [level, s] : level_stats(r))
    summary[level] = {{"count", s.count},
                      {"max_abs_error_pct", s.max_abs * 100},
                      {"mean_abs_error_pct", s.sum_abs / s.count * 100},
                      {"within_10pct", s.max_abs <= 0.10}};
  records.push_back(summary);
  return records;
}

void print_validation(const ValidationReport& r, std::ostream& out) {
  out << "# validation: fitted on node counts";
  for (int c : r.fit.node_counts) out << " " << c;
  out << "; predicting " << r.held_out_nodes << " nodes\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-16s %-7s %10s %6s %6s %-8s %12s %12s %8s\n", "level",
                "name", "source", "size", "ranks", "nodes", "algo", "measured_ms", "predicted_ms",
                "error");
  out << line;
  for (const ValidationRow& row : r.rows) {
    const bool coll = row.level == "collective";
    std::snprintf(line, sizeof line, "%-10s %-16s %-7s %10s %6s %6s %-8s %12.4f %12.4f %7.1f%%\n",
                  row.level.c_str(), row.name.substr(0, 16).c_str(), row.source.c_str(),
                  coll ? size_text(row.bytes).c_str() : "-",
                  coll ? std::to_string(row.span.ranks).c_str() : "-",
                  coll ? std::to_string(row.span.nodes).c_str() : "-",
                  coll ? row.algo.c_str() : "-", row.measured_ms, row.predicted_ms,
                  row.error() * 100);
    out << line;
  }
  for (const auto& [level, s] : level_stats(r))
    out << "# " << level << ": " << s.count << " compared, mean |error| "
        << fmt("%.1f", s.sum_abs / s.count * 100) << "%, max |error| "
        << fmt("%.1f", s.max_abs * 100) << "%" << (s.max_abs <= 0.10 ? " (within 10%)" : "")
        << "\n";
}

}  // namespace collreplay::project
