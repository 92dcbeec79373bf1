#include "bench/project/project_cli.hpp"

#include <iostream>
#include <sstream>
#include <vector>

#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/project/check/check_runner.hpp"
#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/model/fit.hpp"
#include "bench/project/model/measured_points.hpp"
#include "bench/project/observed/observed_cli.hpp"
#include "bench/project/project_report.hpp"
#include "bench/project/projection.hpp"
#include "bench/project/validate.hpp"
#include "bench/replay/flops/step_flops.hpp"
#include "workloads/trace/read/trace_file.hpp"
#include "workloads/trace/trace_import.hpp"
#include "common/errors.hpp"

namespace collreplay::project {
namespace {

void write(const std::string& path, const std::vector<nlohmann::json>& records, ResultsFile& file) {
  if (path.empty()) return;
  for (const nlohmann::json& r : records) file.add(r);
  file.commit();
  std::cout << "# wrote " << records.size() << " records to " << path << "\n";
}

int run_validate(const ProjectOptions& o, ResultsFile& file) {
  std::optional<FabricModel> intra;
  if (!o.intra.empty()) intra = intra_fit(o, FabricModel{}).model;
  const ResultsSet results = load_results(o.validate, o.transport, o.results_fabric);
  const ValidationReport report = validate_results(results, intra, 1);
  print_fit(report.fit, o.validate, std::cout);
  print_validation(report, std::cout);
  write(o.out, validation_json(report, o.validate), file);
  return 0;
}

}  // namespace

void add_fabric_options(CLI::App& app, ProjectOptions& o) {
  app.add_option("--fabric", o.fabric,
                 "fabric profile (sweeps/fabrics.tsv) or a results folder to fit");
  app.add_option("--compute", o.compute,
                 "model:GPU@MFU (a100 h100 h200 b200) or a results folder with a replay");
  app.add_option("--fabrics-file", o.fabrics_file,
                 "fabric profiles (default: sweeps/fabrics.tsv of this checkout)");
  app.add_option(
      "--intra", o.intra,
      "results folder to fit the intra-node tier from (default: the measured 2x H200 sweep)");
  app.add_option("--intra-transport", o.intra_transport, "transport of the intra-node points")
      ->capture_default_str();
  app.add_option("--transport", o.transport, "use only results whose verified transport is this");
  app.add_option("--results-fabric", o.results_fabric, "use only results whose run.fabric is this");
  app.add_option("--observed", o.observed,
                 "CSV of real throughput (model,micro_batch,seq,nodes,gpus_per_node,fabric,"
                 "tokens_per_s_per_gpu): fit the --fabric label's rows, then project");
}

void add_project_options(CLI::App& app, ProjectOptions& o) {
  add_workload_options(app, o.request);
  app.remove_option(app.get_option("--world"));  // the world is --nodes x --gpus-per-node
  add_trace_option(app, o.request);
  add_fabric_options(app, o);
  app.add_option("--nodes", o.nodes, "node counts to project, comma-separated")
      ->capture_default_str();
  app.add_option("--out", o.out, "write JSON Lines records here");
  app.add_option("--validate", o.validate,
                 "fit all node counts of this results folder but the largest; predict the largest");
  app.add_option("--held-out", o.held_out,
                 "with --observed: CSV of rows kept out of the fit, predicted and compared");
  app.add_option("--check", o.check, "published-throughput fixtures: predict every row, exit 1 "
                 "when a series' per-GPU ratios leave its band");
}

std::vector<int> parse_node_counts(const std::string& text) {
  std::vector<int> counts;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 1 || value > 1 << 20)
      throw UsageError("--nodes '" + text + "': '" + item + "' is not a positive node count");
    counts.push_back(static_cast<int>(value));
  }
  if (counts.empty()) throw UsageError("--nodes is empty");
  return counts;
}

int run_project(const ProjectOptions& o) {
  ResultsFile file(o.out, true);
  if (!o.validate.empty()) return run_validate(o, file);
  if (!o.check.empty()) return run_check(o, std::cout);
  if (!o.observed.empty()) {
    write(o.out, run_observed(o, std::cout), file);
    return 0;
  }
  if (!o.held_out.empty()) throw UsageError("--held-out needs --observed");
  if (o.compute.empty()) throw UsageError("--compute model:GPU@MFU|RESULTS_DIR is required");
  if (o.request.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
  const std::vector<int> counts = parse_node_counts(o.nodes);

  ProjectionInputs in;
  in.request = o.request;
  in.compute = parse_compute(o.compute, o.request);
  if (!o.request.trace.empty()) {
    // At the traced world: one trace for every rank (rank 0's FLOPs, whatever world is
    // projected), or a trace per rank, whose ranks may differ (a pipeline's stages): each is
    // projected, and per GPU the FLOPs are their mean.
    WorkloadRequest traced = o.request;
    traced.world = 0;
    traced.rank = 0;
    const trace::TraceImport first = trace::import_trace(traced);
    in.traced_ranks = trace::trace_source(o.request.trace, 0).per_rank ? first.schedule.world : 1;
    std::vector<StepFlops> ranks = {traced_step_flops(first.compute_flops)};
    for (traced.rank = 1; traced.rank < in.traced_ranks; ++traced.rank)
      ranks.push_back(traced_step_flops(trace::import_trace(traced).compute_flops));
    in.traced_flops = mean_step_flops(ranks).hardware;
  }
  // The fits go out with the projection: input refused on the way (expert groups that do not
  // tile nodes) leaves its one line and nothing else.
  std::ostringstream fits;
  const FabricSource fabric = fabric_source(o, fits);
  in.model = fabric.model;
  in.ratio_lo = fabric.ratio_lo;
  in.ratio_hi = fabric.ratio_hi;
  ProjectionLabels labels;
  labels.model = o.request.trace.empty() ? o.request.model : "trace:" + o.request.trace;
  labels.gpus_per_node = o.request.gpus_per_node;
  labels.compute = o.compute;
  labels.micro_batch = o.request.micro_batch;
  labels.seq = o.request.seq;
  labels.ep = o.request.ep;
  labels.fabric_source = fabric.source_label;
  labels.fabric = fabric.fabric_label;
  labels.intra = fabric.intra_label;
  std::vector<nlohmann::json> records = fabric.fit_records;

  std::vector<ProjectionRow> rows;
  for (int nodes : counts) rows.push_back(project_nodes(in, nodes));
  const std::optional<int> tip = tipping_point(rows);
  std::cout << fits.str();
  print_projection(rows, labels, tip, std::cout);
  for (const ProjectionRow& row : rows) records.push_back(projection_json(row, labels, tip));
  write(o.out, records, file);
  return 0;
}

}  // namespace collreplay::project
