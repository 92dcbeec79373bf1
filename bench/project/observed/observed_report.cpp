#include "bench/project/observed/observed_report.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <ostream>

#include "bench/project/project_report.hpp"

namespace collreplay::project {
namespace {

using nlohmann::json;
using Getter = std::function<double(const ObservedParams&)>;

std::string fmt(const char* format, double value) { return format_value(format, value); }

double gbit_s(const ObservedParams& p) { return p.inter_gbyte_s * 8; }
double overhead_ms(const ObservedParams& p) { return p.terms.inter_overhead_ms; }
double slowdown(const ObservedParams& p) { return p.terms.compute_slowdown; }
double spread(const ObservedParams& p) { return p.terms.link_spread; }

// GEMM FLOPs over the 1-node rows' compute time under `p`: the rate the compute runs at.
double compute_rate_tflops(const ObservedFit& fit, const ObservedParams& p) {
  double flops = 0, ms = 0;
  for (const ObservedCase& c : fit.cases)
    if (c.row.nodes == 1) {
      flops += c.flops;
      ms += c.compute_step_ms * p.terms.compute_scale;
    }
  return ms > 0 ? flops / (ms / 1e3) / 1e12 : 0;
}

std::pair<double, double> range(const ObservedFit& fit, const Getter& get) {
  double lo = get(fit.best), hi = lo;
  for (const ObservedParams& p : fit.plausible) {
    lo = std::min(lo, get(p));
    hi = std::max(hi, get(p));
  }
  return {lo, hi};
}

std::string with_range(const ObservedFit& fit, const char* format, const Getter& get) {
  const auto [lo, hi] = range(fit, get);
  return fmt(format, get(fit.best)) + " [" + fmt(format, lo) + ", " + fmt(format, hi) + "]";
}

std::string rows_text(const ObservedFit& fit) {
  std::map<std::string, std::string> nodes_of;
  for (const ObservedCase& c : fit.cases) {
    std::string& list = nodes_of[c.row.model];
    list += (list.empty() ? "" : ",") + std::to_string(c.row.nodes);
  }
  std::string text;
  for (const auto& [model, nodes] : nodes_of)
    text += (text.empty() ? "" : "; ") + model + " at " + nodes + " nodes";
  return text;
}

json params_json(const ObservedFit& fit, const ObservedParams& p) {
  return {{"inter_gbit_s", gbit_s(p)},
          {"inter_overhead_ms", overhead_ms(p)},
          {"compute_slowdown", slowdown(p)},
          {"link_spread", spread(p)},
          {"compute_scale", p.terms.compute_scale},
          {"compute_tflops", compute_rate_tflops(fit, p)},
          {"rms_error", p.rms}};
}

}  // namespace

void print_observed_fit(const ObservedFit& fit, const ObservedLabels& l, std::ostream& out) {
  const ObservedParams& b = fit.best;
  NormalMaxima maxima;
  out << "# observed fit of " << l.table << ", fabric '" << fit.fabric << "': " << rows_text(fit)
      << "\n#   best relative RMS error " << fmt("%.2f%%", b.rms * 100) << "; "
      << fit.plausible.size() << " parameter sets fit within "
      << fmt("%.0f%%", std::max(b.rms, kObservedNoiseFloor) * 100)
      << " (their range in brackets, and the band of every projection below)\n";
  const double tflops = compute_rate_tflops(fit, b);
  out << "#   compute rate             " << fmt("%.0f", tflops) << " TFLOP/s per GPU";
  if (l.peak_tflops)
    out << " = effective MFU " << fmt("%.1f%%", tflops / *l.peak_tflops * 100) << " of " << l.gpu
        << "'s bf16 peak";
  out << ": GEMM FLOPs over compute time, from the 1-node rows (compute scale "
      << fmt("%.3f", b.terms.compute_scale) << " x model:" << l.gpu << ")\n";
  out << "#   inter-node bandwidth     " << with_range(fit, "%.0f", gbit_s)
      << " Gbit/s per node: what a ring moves through one node's NICs together\n";
  out << "#   overhead per collective  " << with_range(fit, "%.2f", overhead_ms)
      << " ms: paid by every collective that crosses nodes, on the comm stream\n";
  out << "#   compute slowdown         " << with_range(fit, "%.2f", slowdown)
      << ": compute runs at " << fmt("%.0f%%", (1 - b.terms.compute_slowdown) * 100)
      << " speed while NCCL kernels overlap it\n";
  out << "#   link spread              " << with_range(fit, "%.2f", spread)
      << ": a ring runs at its slowest link; bandwidth x "
      << fmt("%.2f", slowest_link_factor(2, b.terms.link_spread, maxima)) << " at 2 nodes, x "
      << fmt("%.2f", slowest_link_factor(8, b.terms.link_spread, maxima)) << " at 8, x "
      << fmt("%.2f", slowest_link_factor(1024, b.terms.link_spread, maxima)) << " at 1024\n";
  out << "#   inter-node hop latency   " << fmt("%.0f", kAssumedInterHopUs)
      << " us per ring step (assumed: step times at a few node counts cannot separate it from "
         "the overhead)\n";
  out << "#   optimizer step           inside the compute rate: model:GPU times the GEMMs, and the "
         "1-node rows' fit puts the optimizer's memory-bound kernels in the effective MFU\n";
  out << "#   in words: fabric '" << fit.fabric << "' behaves like " << fmt("%.0f", gbit_s(b))
      << " Gbit/s per node with " << fmt("%.2f", overhead_ms(b))
      << " ms per inter-node collective, and overlapping NCCL kernels slow compute by "
      << fmt("%.0f%%", slowdown(b) * 100) << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "#   %-5s %-14s %3s %6s %6s %4s %14s %14s %9s\n", "line", "model",
                "mb", "seq", "nodes", "gpn", "observed", "fitted", "residual");
  out << line;
  for (std::size_t i = 0; i < fit.cases.size(); ++i) {
    const ObservedCase& c = fit.cases[i];
    const double fitted = tokens_per_s_per_gpu(c, fit.predicted_step_ms[i]);
    std::snprintf(line, sizeof line, "#   %-5d %-14s %3lld %6lld %6d %4d %14.0f %14.0f %8.1f%%\n",
                  c.row.line, c.row.model.substr(0, 14).c_str(),
                  static_cast<long long>(c.row.micro_batch), static_cast<long long>(c.row.seq),
                  c.row.nodes, c.row.gpus_per_node, c.row.tokens_per_s_per_gpu, fitted,
                  (fitted / c.row.tokens_per_s_per_gpu - 1) * 100);
    out << line;
  }
}

json observed_fit_json(const ObservedFit& fit, const ObservedLabels& l) {
  json rows = json::array(), plausible = json::array();
  for (std::size_t i = 0; i < fit.cases.size(); ++i) {
    const ObservedCase& c = fit.cases[i];
    const double fitted = tokens_per_s_per_gpu(c, fit.predicted_step_ms[i]);
    rows.push_back({{"line", c.row.line},
                    {"model", c.row.model},
                    {"micro_batch", c.row.micro_batch},
                    {"seq", c.row.seq},
                    {"nodes", c.row.nodes},
                    {"gpus_per_node", c.row.gpus_per_node},
                    {"observed_tokens_per_s_per_gpu", c.row.tokens_per_s_per_gpu},
                    {"fitted_tokens_per_s_per_gpu", fitted},
                    {"residual_pct", (fitted / c.row.tokens_per_s_per_gpu - 1) * 100}});
  }
  for (const ObservedParams& p : fit.plausible) plausible.push_back(params_json(fit, p));
  json record = {{"record", "observed_fit"},
                 {"source", l.table},
                 {"fabric", fit.fabric},
                 {"gpu", l.gpu},
                 {"intra", tier_json(fit.model.intra)},
                 {"base_us", fit.model.base_us},
                 {"inter_hop_us_assumed", kAssumedInterHopUs},
                 {"noise_floor", kObservedNoiseFloor},
                 {"rows", rows},
                 {"plausible", plausible}};
  record.update(params_json(fit, fit.best));
  if (l.peak_tflops) record["effective_mfu"] = compute_rate_tflops(fit, fit.best) / *l.peak_tflops;
  return record;
}

void print_held_out(const std::vector<HeldOutPrediction>& rows, const std::string& table,
                    std::ostream& out) {
  out << "# held-out rows of " << table << " (not fitted), tokens/s per GPU\n";
  char line[200];
  std::snprintf(line, sizeof line, "#   %-5s %-14s %3s %6s %6s %10s %10s %21s %8s\n", "line",
                "model", "mb", "seq", "nodes", "observed", "predicted", "[lo, hi]", "error");
  out << line;
  for (const HeldOutPrediction& h : rows) {
    const std::string band = "[" + fmt("%.0f", h.lo) + ", " + fmt("%.0f", h.hi) + "]";
    std::snprintf(line, sizeof line, "#   %-5d %-14s %3lld %6lld %6d %10.0f %10.0f %21s %7.1f%%\n",
                  h.row.line, h.row.model.substr(0, 14).c_str(),
                  static_cast<long long>(h.row.micro_batch), static_cast<long long>(h.row.seq),
                  h.row.nodes, h.row.tokens_per_s_per_gpu, h.predicted, band.c_str(),
                  h.error() * 100);
    out << line;
  }
}

std::vector<json> held_out_json(const std::vector<HeldOutPrediction>& rows,
                                const std::string& fabric, const std::string& table) {
  std::vector<json> records;
  for (const HeldOutPrediction& h : rows)
    records.push_back({{"record", "observed_check"},
                       {"source", table},
                       {"line", h.row.line},
                       {"fabric", fabric},
                       {"model", h.row.model},
                       {"micro_batch", h.row.micro_batch},
                       {"seq", h.row.seq},
                       {"nodes", h.row.nodes},
                       {"gpus_per_node", h.row.gpus_per_node},
                       {"observed_tokens_per_s_per_gpu", h.row.tokens_per_s_per_gpu},
                       {"predicted_tokens_per_s_per_gpu", h.predicted},
                       {"predicted_lo", h.lo},
                       {"predicted_hi", h.hi},
                       {"error_pct", h.error() * 100}});
  return records;
}

void print_observed_projection(const std::vector<ProjectionRow>& rows,
                               const std::vector<TokensBand>& bands, std::ostream& out) {
  out << "# tokens/s per GPU [band over the plausible parameter sets]; loss against the first row\n";
  char line[160];
  std::snprintf(line, sizeof line, "%7s %14s %25s %8s\n", "nodes", "tokens/s/GPU", "[lo, hi]",
                "loss");
  out << line;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ProjectionRow& r = rows[i];
    const std::string band = "[" + fmt("%.0f", bands[i].lo / r.world) + ", " +
                             fmt("%.0f", bands[i].hi / r.world) + "]";
    std::snprintf(line, sizeof line, "%7d %14.0f %25s %7.1f%%\n", r.nodes,
                  r.tokens_per_s_per_gpu, band.c_str(),
                  (1 - r.tokens_per_s_per_gpu / rows[0].tokens_per_s_per_gpu) * 100);
    out << line;
  }
}

void add_band_json(json& record, const TokensBand& band) {
  // The per-GPU figures' intervals (the band widened with the projection's) are the row's own.
  record["tokens_per_s_lo"] = band.lo;
  record["tokens_per_s_hi"] = band.hi;
}

}  // namespace collreplay::project
