#include "bench/project/project_cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/project/check/check_runner.hpp"
#include "bench/project/compute_source.hpp"
#include "bench/project/fabrics/fabric_answer.hpp"
#include "bench/project/layouts/layouts.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/interval/scaling_interval.hpp"
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

void print_once(const std::string& text, std::ostream& out) {
  std::set<std::string> seen;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (seen.insert(line).second) out << line << "\n";
}

std::string model_label(const ProjectOptions& o) {
  return o.request.trace.empty() ? o.request.model : "trace:" + o.request.trace;
}

// At the traced world: one trace for every rank (rank 0's FLOPs, whatever world is projected),
// or a trace per rank, whose ranks may differ (a pipeline's stages): each is projected, and per
// GPU the FLOPs are their mean.
void add_traced_flops(const ProjectOptions& o, ProjectionInputs& in) {
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

// What every fabric's projection shares: the workload, its compute and its memory limit.
ProjectionInputs projection_inputs(const ProjectOptions& o) {
  ProjectionInputs in;
  in.request = o.request;
  // A trace's kernels carry their measured times: --compute times only GEMMs it would model.
  in.compute = parse_compute(compute_spec(o), o.request);
  in.memory = memory_limit(o.memory, in.compute, o.request);
  if (!o.request.trace.empty()) add_traced_flops(o, in);
  return in;
}

ProjectionLabels projection_labels(const ProjectOptions& o, const FabricSource& fabric,
                                   const ProjectionInputs& in) {
  ProjectionLabels labels;
  labels.model = model_label(o);
  labels.gpus_per_node = o.request.gpus_per_node;
  labels.compute = compute_words(o);
  if (!in.compute.measured_ms.empty())
    labels.compute += " (its compute-only times op by op; ops it lacks at its compute-only MFU, " +
                      format_value("%.1f%%", in.compute.mfu * 100) + ")";
  if (!o.request.trace.empty())  // a trace's compute ops are its kernels, at their traced times
    labels.compute =
        "the trace's kernel times" +
        (o.compute.empty() ? "" : " (" + o.compute + " names only the peak utilisation divides by)");
  labels.micro_batch = o.request.micro_batch;
  labels.seq = o.request.seq;
  labels.ep = o.request.ep;
  labels.fabric_source = fabric.source_label;
  labels.fabric = fabric.fabric_label;
  labels.intra = fabric.intra_label;
  if (in.memory) labels.memory = memory_words(*in.memory);
  return labels;
}

}  // namespace

void add_fabric_options(CLI::App& app, ProjectOptions& o) {
  app.add_option("--fabric", o.fabric,
                 "fabric profile (sweeps/fabrics.tsv) or a results folder to fit; a,b: each, side "
                 "by side with their ratio");
  app.add_option("--compute", o.compute,
                 "model:GPU@MFU (a100 h100 h200 b200) or a results folder with a replay "
                 "(default model:h100, its default MFU)");
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

void add_memory_options(CLI::App& app, MemoryFlags& flags) {
  app.add_option("--gpu-memory-gib", flags.gpu_memory_gib,
                 "memory of one GPU in GiB (default: the --compute model:GPU's)");
  app.add_option("--optimizer-states", flags.optimizer_states,
                 "plan (AdamW moments in the parameter dtype, as the schedule times them) | fp32 "
                 "(fp32 master weights and moments) | fp32-remainders (fp32 moments and 16-bit "
                 "master remainders: Apex's DistributedFusedAdam)")
      ->capture_default_str();
}

void add_project_options(CLI::App& app, ProjectOptions& o) {
  add_workload_options(app, o.request);
  app.remove_option(app.get_option("--world"));  // the world is --nodes x --gpus-per-node
  add_trace_option(app, o.request);
  add_fabric_options(app, o);
  add_memory_options(app, o.memory);
  app.add_option("--nodes", o.nodes, "node counts to project, comma-separated")
      ->capture_default_str();
  app.add_option("--answer-nodes", o.answer_nodes,
                 "with two fabrics: node counts of the fabric answer (default: --nodes)");
  app.add_option("--out", o.out, "write JSON Lines records here");
  app.add_option("--validate", o.validate,
                 "fit all node counts of this results folder but the largest; predict the largest");
  app.add_option("--held-out", o.held_out,
                 "with --observed: CSV of rows kept out of the fit, predicted and compared");
  app.add_option("--check", o.check, "published-throughput fixtures: predict every row, exit 1 "
                 "when a series' per-GPU ratios leave its band");
}

std::string compute_spec(const ProjectOptions& o) {
  return o.compute.empty() ? kDefaultCompute : o.compute;
}

std::string compute_words(const ProjectOptions& o) {
  return o.compute.empty() ? std::string(kDefaultCompute) + " (default)" : o.compute;
}

records::AnswerAssumptions answer_assumptions(const ProjectOptions& o) {
  records::AnswerAssumptions a;
  a.compute = compute_words(o);
  a.optimizer_states = o.memory.optimizer_states;
  a.fsdp = answer_fsdp(o.request);
  a.micro_batch = o.request.micro_batch;
  a.seq = o.request.seq;
  a.gpus_per_node = o.request.gpus_per_node;
  return a;
}

std::vector<int> parse_node_counts(const std::string& text, const std::string& flag) {
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
      throw UsageError(flag + " '" + text + "': '" + item + "' is not a positive node count");
    counts.push_back(static_cast<int>(value));
  }
  if (counts.empty()) throw UsageError(flag + " is empty");
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
  if (o.request.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
  const std::vector<int> counts = parse_node_counts(o.nodes);
  const std::vector<int> answer_counts =
      o.answer_nodes.empty() ? counts : parse_node_counts(o.answer_nodes, "--answer-nodes");
  const std::vector<std::string> fabric_names = split_fabrics(o.fabric);
  if (!o.answer_nodes.empty() && fabric_names.size() < 2)
    throw UsageError("--answer-nodes needs two fabrics or more to compare (--fabric A,B)");
  const ProjectionInputs base = projection_inputs(o);
  const IntervalCalibration calibration = published_calibration();

  // The fits go out with the projection: input refused on the way (expert groups that do not
  // tile nodes) leaves its one line and nothing else.
  std::ostringstream fits, tables;
  std::vector<nlohmann::json> records;
  std::vector<LabelledFabric> fabrics;
  for (const std::string& name : fabric_names) {
    ProjectOptions one = o;
    one.fabric = name;
    const FabricSource fabric = fabric_source(one, fits);
    ProjectionInputs in = base;
    in.model = fabric.model;
    in.ratio_lo = fabric.ratio_lo;
    in.ratio_hi = fabric.ratio_hi;
    std::vector<ProjectionRow> rows;
    for (int nodes : counts) rows.push_back(project_nodes(in, nodes));
    apply_intervals(rows, calibration, fabric.measured_max_nodes);
    const std::optional<TippingPoint> tip = tipping_point(rows);
    ProjectionLabels labels = projection_labels(o, fabric, in);
    labels.interval = interval_words(calibration, fabric.measured_max_nodes);
    print_projection(rows, labels, tip, tables);
    records.insert(records.end(), fabric.fit_records.begin(), fabric.fit_records.end());
    const std::string layout_cost = layout_cost_text(rows);
    for (const ProjectionRow& row : rows) {
      records.push_back(projection_json(row, labels, tip));
      records.back()["layout_cost"] = layout_cost;  // the fabric's rows alike, as its tipping point
      if (o.request.trace.empty()) records.back()["layout"] = layout_label(o.request);
    }
    fabrics.push_back(
        {fabric.fabric_label, in, fabric.source_label, fabric.measured_max_nodes});
  }
  print_once(fits.str(), std::cout);  // fabrics that share the intra-node fit print it once
  std::cout << tables.str();
  // The answer weighs every layout, so it needs a catalog model to lay out and its memory.
  if (fabrics.size() > 1 && o.request.trace.empty()) {
    const records::AnswerAssumptions assumed = answer_assumptions(o);
    for (const auto& answers : answer_fabrics(o.request, fabrics, answer_counts, assumed, calibration)) {
      std::cout << records::answer_table_text(answers);
      for (const records::FabricAnswer& a : answers) records.push_back(records::answer_json(a));
    }
  }
  write(o.out, records, file);
  return 0;
}

}  // namespace collreplay::project
