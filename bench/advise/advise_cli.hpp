// The `advise` command line: the model and batch shape (replay's workload flags, less those that
// pick the layout), a node count, a fabric as `project` takes it (profile, results folder or
// --observed table; several profiles side by side), the GPU's memory; ranks the layouts that fit.
#pragma once
#include <string>

#include "bench/app/run/cli_names.hpp"
#include "bench/project/project_cli.hpp"

namespace collreplay::advise {

struct AdviseOptions {
  project::ProjectOptions project;  // workload, fabric and compute flags, shared with `project`
  int nodes = 0;
  std::string out;  // JSON Lines file
};

void add_advise_options(CLI::App& app, AdviseOptions& options);

int run_advise(const AdviseOptions& options);

}  // namespace collreplay::advise
