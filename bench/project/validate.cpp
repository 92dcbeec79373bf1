#include "bench/project/validate.hpp"

#include <filesystem>
#include <map>

#include "common/errors.hpp"

namespace collreplay::project {
namespace {

std::string count_list(const std::vector<int>& counts) {
  std::string text;
  for (int c : counts) text += (text.empty() ? "" : ", ") + std::to_string(c);
  return text;
}

double predicted_ms(const FitReport& fit, CollKind kind, double bytes, const GroupSpan& span,
                    const std::optional<Algo>& reported, std::string* algo_used) {
  MeasuredPoint p;
  p.kind = kind;
  p.bytes = bytes;
  p.span = span;
  p.algo_reported = reported;
  bool was_reported = false;
  const Algo algo = assumed_algo(p, was_reported);
  const Prediction pred = was_reported ? predict_with(kind, algo, bytes, span, fit.model)
                                       : predict(kind, bytes, span, fit.model);
  if (algo_used) *algo_used = std::string(algo_name(pred.algo));
  return pred.time_us / 1e3;
}

}  // namespace

ValidationReport validate_results(const ResultsSet& results,
                                  const std::optional<FabricModel>& intra_given, int links) {
  const std::vector<int> counts = node_counts(results.points);
  if (counts.size() < 3)
    throw UsageError(
        "--validate needs measurements at 3 or more node counts (2 to fit, the largest to "
        "predict); found " +
        std::to_string(counts.size()) +
        (counts.empty() ? "" : " (" + count_list(counts) + " nodes)"));
  require_one_fabric(results.points, "--validate results");
  require_one_transport_per_tier(results.points, "--validate results");
  ValidationReport report;
  report.held_out_nodes = counts.back();
  std::vector<MeasuredPoint> fit_points, held_out;
  for (const MeasuredPoint& p : results.points)
    (p.run_nodes == report.held_out_nodes ? held_out : fit_points).push_back(p);
  report.fit = fit_fabric(fit_points, intra_given, links);

  for (const MeasuredPoint& p : held_out) {
    ValidationRow row{
        "collective", std::string(coll_kind_name(p.kind)), p.source, p.bytes, p.span, "", 0, 0};
    row.measured_ms = p.time_us / 1e3;
    row.predicted_ms =
        predicted_ms(report.fit, p.kind, p.bytes, p.span, p.algo_reported, &row.algo);
    report.rows.push_back(row);
  }
  for (const ReplayRun& run : results.replays) {
    if (run.nodes != report.held_out_nodes || run.comms.empty()) continue;
    std::map<std::string, ValidationRow> units;
    std::vector<std::string> order;
    ValidationRow step{
        "step", std::filesystem::path(run.file).filename().string(), "replay", 0, {}, "", 0, 0};
    for (const ReplayComm& c : run.comms) {
      const double predicted =
          predicted_ms(report.fit, c.kind, c.bytes, c.span, run.algo_reported, nullptr);
      auto owner = run.compute_unit.find(c.hides_behind);
      const std::string unit = owner != run.compute_unit.end() ? owner->second : c.unit;
      if (!units.count(unit)) {
        order.push_back(unit);
        units[unit] = ValidationRow{"unit", unit, "replay", 0, {}, "", 0, 0};
      }
      units[unit].measured_ms += c.comm_only_ms;
      units[unit].predicted_ms += predicted;
      step.measured_ms += c.comm_only_ms;
      step.predicted_ms += predicted;
    }
    if (run.step_comm_ms) step.measured_ms = *run.step_comm_ms;
    for (const std::string& unit : order) report.rows.push_back(units[unit]);
    report.rows.push_back(step);
  }
  return report;
}

}  // namespace collreplay::project
