#include "bench/advise/advise_cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "bench/advise/advice.hpp"
#include "bench/advise/advice_report.hpp"
#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/check/check_runner.hpp"
#include "bench/project/fabrics/fabric_answer.hpp"
#include "bench/project/interval/scaling_interval.hpp"
#include "bench/project/layouts/layouts.hpp"
#include "bench/project/memory/memory_limit.hpp"
#include "bench/project/observed/observed_cli.hpp"
#include "bench/project/project_report.hpp"
#include "common/errors.hpp"

namespace collreplay::advise {
namespace {

// Flags of the workload that name one layout: advise chooses them itself.
constexpr const char* kLayoutFlags[] = {"--world",
                                        "--sharding",
                                        "--shard-group",
                                        "--tp",
                                        "--ep",
                                        "--mesh",
                                        "--pp",
                                        "--pp-schedule",
                                        "--pp-layers",
                                        "--distributed-optimizer",
                                        "--no-activation-checkpointing"};

void check(const AdviseOptions& o) {
  const project::ProjectOptions& p = o.project;
  if (o.nodes < 1) throw UsageError("--nodes must be at least 1");
  if (p.request.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
  if (p.request.plan != "fsdp1" && p.request.plan != "fsdp2")
    throw UsageError("--plan '" + p.request.plan +
                     "': advise weighs ddp itself; give the FSDP implementation, fsdp1 or fsdp2");
  if (!p.compute.empty() && p.compute.rfind("model:", 0) != 0)
    throw UsageError("--compute " + p.compute +
                     ": advise needs a modelled GPU (model:GPU@MFU); a measured replay times "
                     "only the layout it ran");
}

// The inputs every layout shares on one fabric (its tiers, compute and memory limit), and the
// labels that name them.
struct AdviseFabric {
  project::LabelledFabric fabric;
  AdviceLabels labels;
};

AdviseFabric advise_on(const project::ProjectOptions& p, int nodes,
                       const project::IntervalCalibration& calibration) {
  AdviseFabric out;
  project::ProjectionInputs& in = out.fabric.inputs;
  AdviceLabels& labels = out.labels;
  labels.model = p.request.model;
  labels.optimizer_states = p.memory.optimizer_states;
  labels.nodes = nodes;
  labels.gpus_per_node = p.request.gpus_per_node;
  labels.micro_batch = p.request.micro_batch;
  labels.seq = p.request.seq;
  // The fit's own '#' lines come first, as `project` prints them.
  if (!p.observed.empty()) {
    const project::ObservedFabric observed = project::fit_observed_fabric(p, std::cout);
    in.model = observed.fit.model;
    in.terms = observed.fit.best.terms;
    in.compute = observed.compute;
    labels.fabric = "observed:" + p.fabric;
    out.fabric.band_source = labels.fabric;
    labels.compute = observed.compute_spec + " x " +
                     project::format_value("%.3f", observed.fit.best.terms.compute_scale);
  } else {
    const project::FabricSource fabric = project::fabric_source(p, std::cout);
    in.model = fabric.model;
    in.ratio_lo = fabric.ratio_lo;
    in.ratio_hi = fabric.ratio_hi;
    labels.compute = project::compute_words(p);
    in.compute = project::parse_compute(project::compute_spec(p), p.request);
    labels.fabric = fabric.fabric_label;
    out.fabric.band_source = fabric.source_label;
    out.fabric.measured_max_nodes = fabric.measured_max_nodes;
  }
  in.memory = project::memory_limit(p.memory, in.compute, p.request);
  labels.gpu_memory_bytes = in.memory->budget.capacity_bytes;
  labels.memory = project::memory_words(*in.memory);
  out.fabric.label = labels.fabric;
  labels.scaling_halfwidth = project::scaling_halfwidth_from_one_node(
      calibration, nodes, out.fabric.measured_max_nodes);
  labels.interval = "tokens/s [lo, hi]: +-" +
                    project::format_value("%.1f", labels.scaling_halfwidth * 100) +
                    "% at " + std::to_string(nodes) + " node(s), " +
                    project::calibration_text(calibration) + ", doublings counted from one node";
  return out;
}

}  // namespace

void add_advise_options(CLI::App& app, AdviseOptions& o) {
  add_workload_options(app, o.project.request);
  for (const char* flag : kLayoutFlags) app.remove_option(app.get_option(flag));
  project::add_fabric_options(app, o.project);
  project::add_memory_options(app, o.project.memory);
  app.add_option("--nodes", o.nodes, "node count")->required();
  app.add_option("--out", o.out, "write one JSON Lines record per layout here");
}

int run_advise(const AdviseOptions& o) {
  check(o);
  const project::ProjectOptions& p = o.project;
  const ModelConfig model = load_model(p.request.model, p.request.catalog_dir);  // said first
  ResultsFile file(o.out, true);
  std::vector<std::string> names = {p.fabric};
  if (p.observed.empty()) names = project::split_fabrics(p.fabric);
  const project::IntervalCalibration calibration = project::published_calibration();
  std::vector<AdviseFabric> fabrics;
  for (const std::string& name : names) {
    project::ProjectOptions one = p;
    one.fabric = name;
    fabrics.push_back(advise_on(one, o.nodes, calibration));
  }
  std::vector<project::ProjectionInputs> inputs;
  std::vector<project::LabelledFabric> labelled;
  for (const AdviseFabric& f : fabrics) {
    inputs.push_back(f.fabric.inputs);
    labelled.push_back(f.fabric);
  }
  const auto rankings =
      project::rank_layouts(project::candidate_layouts(p.request, model, o.nodes), o.nodes, inputs);
  std::vector<nlohmann::json> records;
  for (std::size_t f = 0; f < fabrics.size(); ++f) {
    print_advice(rankings[f], fabrics[f].labels, std::cout);
    for (const Advice& a : rankings[f]) records.push_back(advice_json(a, fabrics[f].labels));
  }
  if (fabrics.size() > 1) {
    std::vector<std::string> labels;
    for (const AdviseFabric& f : fabrics) labels.push_back(f.labels.fabric);
    print_layouts_side_by_side(rankings, labels, std::cout);
    const auto answers = project::answers_from_rankings(labelled, rankings, p.request.model,
                                                        o.nodes, project::answer_assumptions(p),
                                                        calibration);
    std::cout << records::answer_table_text(answers);
    for (const records::FabricAnswer& a : answers) records.push_back(records::answer_json(a));
  }
  if (file.enabled()) {
    for (const nlohmann::json& r : records) file.add(r);
    file.commit();
    std::cout << "# wrote " << records.size() << " records to " << o.out << "\n";
  }
  return 0;
}

}  // namespace collreplay::advise
