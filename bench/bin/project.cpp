// project: a fitted collective cost model that predicts per-layer overlap headroom, exposed comm,
// tokens/s and MFU at node counts nobody measured (bench/project/), and checks itself against a
// held-out node count (--validate). No MPI, no GPU.
#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"
#include "bench/project/project_cli.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    collreplay::project::ProjectOptions options;
    return collreplay::run_with_flags(
        n, args,
        "collreplay project: headroom, exposed comm and tokens/s projected over node counts",
        [&](CLI::App& app) { collreplay::project::add_project_options(app, options); },
        [&] { return collreplay::project::run_project(options); });
  });
}
