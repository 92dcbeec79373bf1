// advise: the parallel layouts that fit a model on a cluster, ranked by projected tokens/s over a
// fabric, with memory per GPU, exposed comm and headroom (bench/advise/). No MPI, no GPU.
#include "bench/advise/advise_cli.hpp"

#include <CLI/CLI.hpp>

#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    CLI::App app{"collreplay advise: parallel layouts that fit, ranked by projected tokens/s"};
    collreplay::advise::AdviseOptions options;
    collreplay::advise::add_advise_options(app, options);
    if (auto exit_code = collreplay::parse_flags(app, n, args)) return *exit_code;
    return collreplay::advise::run_advise(options);
  });
}
