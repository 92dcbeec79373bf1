// replay: runs one training step's schedule (model + plan + world) on the fabric beside its GEMM
// slices and reports the overlap headroom (bench/replay/replay_run.hpp); --dry-run only prints the
// schedule, without MPI or a GPU. The command line: bench/replay/cli/replay_cli.hpp.
#include "bench/app/guarded_main.hpp"
#include "bench/replay/cli/replay_cli.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, collreplay::replay_main);
}
