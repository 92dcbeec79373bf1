#include "bench/project/observed/observed_cli.hpp"

#include "bench/project/memory/memory_limit.hpp"

#include <algorithm>
#include <ostream>

#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/memory/memory_limit.hpp"
#include "bench/compute/gpu_peaks.hpp"
#include "bench/project/check/check_runner.hpp"
#include "bench/project/interval/scaling_interval.hpp"
#include "bench/project/observed/observed_fit.hpp"
#include "bench/project/observed/observed_report.hpp"
#include "bench/project/observed/observed_table.hpp"
#include "bench/project/project_report.hpp"
#include "common/errors.hpp"
#include "workloads/plan/schedule_builder.hpp"

namespace collreplay::project {
namespace {

// The GPU of `model:GPU[@MFU]`: its compute peak comes with the compute source. The fit scales the
// compute, so only a modelled GPU will do.
std::string gpu_of(const std::string& spec) {
  if (spec.rfind("model:", 0) != 0)
    throw UsageError("--observed fits the compute as a scale of a modelled GPU: give --compute "
                     "model:GPU (default model:h100), not '" + spec + "'");
  const std::string gpu = spec.substr(6, spec.find('@') - 6);
  if (!find_gpu_peak(gpu))
    throw UsageError("--compute " + spec + ": unknown GPU '" + gpu + "' (a100, h100, h200, b200)");
  return gpu;
}

std::vector<ObservedCase> prepare(const std::vector<ObservedRow>& rows, const ProjectOptions& o,
                                  const ComputeSource& compute) {
  std::vector<ObservedCase> cases;
  for (const ObservedRow& row : rows) cases.push_back(prepare_case(row, o.request, compute));
  return cases;
}

int measured_max_nodes(const ObservedFit& fit) {
  int nodes = 0;
  for (const ObservedCase& c : fit.cases) nodes = std::max(nodes, c.row.nodes);
  return nodes;
}

// The fitted row a held-out row's scaling extrapolates from: the same model's fewest nodes in the
// fit, else the fit's fewest nodes.
std::size_t anchor_of(const ObservedFit& fit, const ObservedCase& held) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < fit.cases.size(); ++i) {
    const ObservedRow& r = fit.cases[i].row;
    const ObservedRow& b = fit.cases[best].row;
    const bool same = r.model == held.row.model, best_same = b.model == held.row.model;
    if ((same && !best_same) || (same == best_same && r.nodes < b.nodes)) best = i;
  }
  return best;
}

// Each held-out row predicted with the band of the plausible fits (the parameters' uncertainty),
// each edge moved out by the projection's interval (the published calibration: the structure's)
// for its distance from the fitted row it extrapolates from.
std::vector<HeldOutPrediction> check_held_out(const ObservedFit& fit,
                                              const std::vector<ObservedCase>& cases) {
  NormalMaxima maxima;
  const IntervalCalibration calibration = published_calibration();
  std::vector<HeldOutPrediction> rows;
  for (const ObservedCase& c : cases) {
    HeldOutPrediction h;
    h.row = c.row;
    h.predicted = tokens_per_s_per_gpu(c, predict_case_ms(fit, fit.best, c, maxima));
    h.lo = h.hi = h.predicted;
    for (const ObservedParams& p : fit.plausible) {
      const double tokens = tokens_per_s_per_gpu(c, predict_case_ms(fit, p, c, maxima));
      h.lo = std::min(h.lo, tokens);
      h.hi = std::max(h.hi, tokens);
    }
    const std::size_t a = anchor_of(fit, c);
    const ObservedCase& anchor = fit.cases[a];
    const double anchor_tokens = tokens_per_s_per_gpu(anchor, fit.predicted_step_ms[a]);
    const double d = extrapolation_distance(c.schedule.world, anchor.schedule.world, c.row.nodes,
                                            measured_max_nodes(fit));
    const RatioInterval i = ratio_interval(calibration, h.predicted / anchor_tokens, d);
    h.lo -= h.predicted - anchor_tokens * i.lo;
    h.hi += anchor_tokens * i.hi - h.predicted;
    rows.push_back(h);
  }
  return rows;
}

// The projection at one node count under the best fit, with the band of the plausible ones:
// tokens/s, headroom and exposed comm at their extremes.
ProjectionRow project_with_band(const ObservedFit& fit, ProjectionInputs in, int nodes,
                                TokensBand& band, NormalMaxima& maxima) {
  WorkloadRequest request = in.request;
  request.world = nodes * request.gpus_per_node;
  const Schedule schedule = build_schedule(request);
  ProjectionRow row = project_schedule(in, schedule, nodes, maxima);
  band = {row.tokens_per_s, row.tokens_per_s};
  row.headroom_lo_ms = row.headroom_hi_ms = row.headroom_ms;
  row.exposed_lo_ms = row.exposed_hi_ms = row.exposed_comm_ms;
  for (const ObservedParams& p : fit.plausible) {
    in.model = with_inter_tier(fit.model, p);
    in.terms = p.terms;
    const ProjectionRow alt = project_schedule(in, schedule, nodes, maxima);
    band.lo = std::min(band.lo, alt.tokens_per_s);
    band.hi = std::max(band.hi, alt.tokens_per_s);
    row.headroom_lo_ms = std::min(row.headroom_lo_ms, alt.headroom_ms);
    row.headroom_hi_ms = std::max(row.headroom_hi_ms, alt.headroom_ms);
    row.exposed_lo_ms = std::min(row.exposed_lo_ms, alt.exposed_comm_ms);
    row.exposed_hi_ms = std::max(row.exposed_hi_ms, alt.exposed_comm_ms);
  }
  return row;
}

// The per-GPU intervals: the band of the plausible fits (the parameters' uncertainty), each edge
// moved out by the projection's interval (the published calibration, counted again beyond the
// table's largest node count: the structure's).
void set_intervals(std::vector<ProjectionRow>& rows, const std::vector<TokensBand>& bands,
                   const ObservedFit& fit, std::string& words) {
  const int measured_max = measured_max_nodes(fit);
  const IntervalCalibration calibration = published_calibration();
  apply_intervals(rows, calibration, measured_max);
  words = interval_words(calibration, measured_max) + ", added to the plausible fits' band";
  const double first = rows.front().tokens_per_s_per_gpu;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ProjectionRow& r = rows[i];
    const double per_gpu = r.tokens_per_s_per_gpu;
    r.tokens_per_s_per_gpu_lo = bands[i].lo / r.world - (per_gpu - r.tokens_per_s_per_gpu_lo);
    r.tokens_per_s_per_gpu_hi = bands[i].hi / r.world + (r.tokens_per_s_per_gpu_hi - per_gpu);
    if (first <= 0) continue;
    r.per_gpu_vs_first_lo = r.tokens_per_s_per_gpu_lo / first;
    r.per_gpu_vs_first_hi = r.tokens_per_s_per_gpu_hi / first;
  }
}

}  // namespace

ObservedFabric fit_observed_fabric(const ProjectOptions& o, std::ostream& out) {
  if (o.fabric.empty())
    throw UsageError("--observed needs --fabric LABEL: one value of the table's fabric column");
  if (o.request.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
  ObservedFabric f;
  f.compute_spec = o.compute.empty() ? "model:h100" : o.compute;
  ObservedLabels labels{o.observed, gpu_of(f.compute_spec), std::nullopt};
  f.compute = parse_compute(f.compute_spec, o.request);
  labels.peak_tflops = f.compute.peak_tflops;
  const std::vector<ObservedRow> rows =
      rows_of_fabric(read_observed_table(o.observed, o.request.catalog_dir), o.fabric, o.observed);
  const StepTerms fixed;  // the nominal mechanisms; the fit sets the rest
  const FabricModel base = intra_fit(o, FabricModel{}).model;
  f.fit = fit_observed(prepare(rows, o, f.compute), base, fixed, o.fabric);
  print_observed_fit(f.fit, labels, out);
  f.records.push_back(observed_fit_json(f.fit, labels));
  f.intra_label = "fit:" + intra_results(o) + " (" + o.intra_transport + ")";
  return f;
}

std::vector<nlohmann::json> run_observed(const ProjectOptions& o, std::ostream& out) {
  const std::vector<int> counts = parse_node_counts(o.nodes);
  ObservedFabric observed = fit_observed_fabric(o, out);
  std::vector<ObservedRow> held;
  if (!o.held_out.empty())
    held = rows_of_fabric(read_observed_table(o.held_out, o.request.catalog_dir), o.fabric,
                          o.held_out);
  const ObservedFit& fit = observed.fit;
  const ComputeSource& compute = observed.compute;
  const std::vector<ObservedCase> held_cases = prepare(held, o, compute);
  std::vector<nlohmann::json> records = std::move(observed.records);
  if (!held_cases.empty()) {
    const std::vector<HeldOutPrediction> checked = check_held_out(fit, held_cases);
    print_held_out(checked, o.held_out, out);
    for (const nlohmann::json& r : held_out_json(checked, o.fabric, o.held_out))
      records.push_back(r);
  }

  ProjectionInputs in;
  in.request = o.request;
  in.model = fit.model;
  in.compute = compute;
  in.terms = fit.best.terms;
  in.memory = memory_limit(o.memory, compute, o.request);
  ProjectionLabels plabels;
  plabels.model = o.request.model;
  plabels.gpus_per_node = o.request.gpus_per_node;
  plabels.compute =
      observed.compute_spec + " x " + format_value("%.3f", fit.best.terms.compute_scale);
  plabels.fabric = "observed:" + o.fabric;
  plabels.intra = observed.intra_label;
  if (in.memory) plabels.memory = memory_words(*in.memory);
  std::vector<ProjectionRow> projected;
  std::vector<TokensBand> bands(counts.size());
  NormalMaxima maxima;
  for (std::size_t i = 0; i < counts.size(); ++i)
    projected.push_back(project_with_band(fit, in, counts[i], bands[i], maxima));
  set_intervals(projected, bands, fit, plabels.interval);
  const std::optional<TippingPoint> tip = tipping_point(projected);
  print_projection(projected, plabels, tip, out);
  print_observed_projection(projected, bands, out);
  for (std::size_t i = 0; i < projected.size(); ++i) {
    nlohmann::json record = projection_json(projected[i], plabels, tip);
    add_band_json(record, bands[i]);
    records.push_back(record);
  }
  return records;
}

}  // namespace collreplay::project
