#include "bench/advise/advise_cli.hpp"

#include <cmath>
#include <iostream>

#include "bench/advise/advice.hpp"
#include "bench/advise/advice_report.hpp"
#include "bench/advise/layouts.hpp"
#include "bench/app/results.hpp"
#include "bench/flags/workload_flags.hpp"
#include "bench/project/compute_source.hpp"
#include "bench/project/fabric_source.hpp"
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
                                        "--no-activation-checkpointing"};

void check(const AdviseOptions& o) {
  const project::ProjectOptions& p = o.project;
  if (o.nodes < 1) throw UsageError("--nodes must be at least 1");
  if (p.request.gpus_per_node < 1) throw UsageError("--gpus-per-node must be at least 1");
  if (!(o.gpu_memory_gib > 0) || !std::isfinite(o.gpu_memory_gib))
    throw UsageError("--gpu-memory-gib must be a positive number of GiB");
  if (p.request.plan != "fsdp1" && p.request.plan != "fsdp2")
    throw UsageError("--plan '" + p.request.plan +
                     "': advise weighs ddp itself; give the FSDP implementation, fsdp1 or fsdp2");
  if (!p.compute.empty() && p.compute.rfind("model:", 0) != 0)
    throw UsageError("--compute " + p.compute +
                     ": advise needs a modelled GPU (model:GPU@MFU); a measured replay times "
                     "only the layout it ran");
}

}  // namespace

void add_advise_options(CLI::App& app, AdviseOptions& o) {
  add_workload_options(app, o.project.request);
  for (const char* flag : kLayoutFlags) app.remove_option(app.get_option(flag));
  project::add_fabric_options(app, o.project);
  app.add_option("--nodes", o.nodes, "node count")->required();
  app.add_option("--gpu-memory-gib", o.gpu_memory_gib, "memory of one GPU in GiB")
      ->capture_default_str();
  app.add_option("--optimizer-states", o.optimizer_states,
                 "plan (AdamW moments in the parameter dtype, as the schedule times them) | fp32 "
                 "(fp32 master weights and moments)")
      ->capture_default_str();
  app.add_option("--out", o.out, "write one JSON Lines record per layout here");
}

int run_advise(const AdviseOptions& o) {
  check(o);
  const OptimizerStates states = parse_optimizer_states(o.optimizer_states);
  ResultsFile file(o.out, true);
  const project::ProjectOptions& p = o.project;
  AdviceInputs in;
  in.model = load_model(p.request.model, p.request.catalog_dir);
  in.nodes = o.nodes;
  in.gpu_memory_bytes = static_cast<std::uint64_t>(o.gpu_memory_gib * (1ULL << 30));
  in.states = states;
  AdviceLabels labels{p.request.model,
                      "",
                      "",
                      o.optimizer_states,
                      o.nodes,
                      p.request.gpus_per_node,
                      p.request.micro_batch,
                      p.request.seq,
                      in.gpu_memory_bytes};
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
  const std::vector<Advice> advice =
      advise_layouts(candidate_layouts(p.request, in.model, o.nodes), in);
  print_advice(advice, labels, std::cout);
  if (file.enabled()) {
    for (const Advice& a : advice) file.add(advice_json(a, labels));
    file.commit();
    std::cout << "# wrote " << advice.size() << " records to " << o.out << "\n";
  }
  return 0;
}

}  // namespace collreplay::advise
