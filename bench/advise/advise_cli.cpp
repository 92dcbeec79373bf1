#include "bench/advise/advise_cli.hpp"

#include <iostream>

#include "bench/advise/advice.hpp"
#include "bench/advise/advice_report.hpp"
#include "bench/advise/layouts.hpp"
#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_source.hpp"
#include "bench/project/fabrics/fabric_comparison.hpp"
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

// The inputs every layout shares on one fabric, and the labels that name them.
FabricAdvice advise_on(const project::ProjectOptions& p, int nodes) {
  AdviceInputs in;
  in.nodes = nodes;
  AdviceLabels labels;
  labels.model = p.request.model;
  labels.optimizer_states = p.memory.optimizer_states;
  labels.nodes = nodes;
  labels.gpus_per_node = p.request.gpus_per_node;
  labels.micro_batch = p.request.micro_batch;
  labels.seq = p.request.seq;
  // The fit's own '#' lines come first, as `project` prints them.
  if (!p.observed.empty()) {
    const project::ObservedFabric observed = project::fit_observed_fabric(p, std::cout);
    in.projection.model = observed.fit.model;
    in.projection.terms = observed.fit.best.terms;
    in.projection.compute = observed.compute;
    labels.fabric = "observed:" + p.fabric;
    labels.compute = observed.compute_spec + " x " +
                     project::format_value("%.3f", observed.fit.best.terms.compute_scale);
  } else {
    const project::FabricSource fabric = project::fabric_source(p, std::cout);
    in.projection.model = fabric.model;
    in.projection.ratio_lo = fabric.ratio_lo;
    in.projection.ratio_hi = fabric.ratio_hi;
    labels.compute = p.compute.empty() ? "model:h100" : p.compute;
    in.projection.compute = project::parse_compute(labels.compute, p.request);
    labels.fabric = fabric.fabric_label;
  }
  in.projection.memory = project::memory_limit(p.memory, in.projection.compute, p.request);
  labels.gpu_memory_bytes = in.projection.memory->budget.capacity_bytes;
  labels.memory = project::memory_words(*in.projection.memory);
  return {labels, advise_layouts(candidate_layouts(p.request, in.projection.memory->model, nodes),
                                 in)};
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
  load_model(p.request.model, p.request.catalog_dir);  // an unknown model is the first thing said
  ResultsFile file(o.out, true);
  std::vector<std::string> fabrics = {p.fabric};
  if (p.observed.empty()) fabrics = project::split_fabrics(p.fabric);
  std::vector<FabricAdvice> all;
  std::vector<nlohmann::json> records;
  for (const std::string& fabric : fabrics) {
    project::ProjectOptions one = p;
    one.fabric = fabric;
    FabricAdvice advised = advise_on(one, o.nodes);
    print_advice(advised.advice, advised.labels, std::cout);
    for (const Advice& a : advised.advice) records.push_back(advice_json(a, advised.labels));
    all.push_back(std::move(advised));
  }
  print_advice_comparison(all, std::cout);
  if (file.enabled()) {
    for (const nlohmann::json& r : records) file.add(r);
    file.commit();
    std::cout << "# wrote " << records.size() << " records to " << o.out << "\n";
  }
  return 0;
}

}  // namespace collreplay::advise
