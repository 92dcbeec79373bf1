// project: a fitted collective cost model that predicts per-layer overlap headroom, exposed comm,
// tokens/s and MFU at node counts nobody measured (bench/project/), and checks itself against a
// held-out node count (--validate). No MPI, no GPU.
#include "bench/app/guarded_main.hpp"
#include "bench/project/project_cli.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, collreplay::project::project_main);
}
