// compare: BASE vs NEW results, paired measurement for measurement; exit 1 when NEW is slower
// beyond --threshold with p < 0.05 (bench/compare/). No MPI, no GPU.
#include "bench/app/guarded_main.hpp"
#include "bench/compare/compare_cli.hpp"
#include "bench/flags/parse_flags.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int n, char** args) {
    collreplay::compare::CompareOptions options;
    return collreplay::run_with_flags(
        n, args, "collreplay compare: a regression gate between two results files or folders",
        [&](CLI::App& app) { collreplay::compare::add_compare_options(app, options); },
        [&] { return collreplay::compare::run_compare(options); });
  });
}
