// advise: the parallel layouts that fit a model on a cluster, ranked by projected tokens/s over a
// fabric, with memory per GPU, exposed comm and headroom (bench/advise/). No MPI, no GPU.
#include "bench/advise/advise_cli.hpp"
#include "bench/app/guarded_main.hpp"
#include "bench/flags/parse_flags.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    collreplay::advise::AdviseOptions options;
    return collreplay::run_with_flags(
        n, args, "collreplay advise: parallel layouts that fit, ranked by projected tokens/s",
        [&](CLI::App& app) { collreplay::advise::add_advise_options(app, options); },
        [&] { return collreplay::advise::run_advise(options); });
  });
}
