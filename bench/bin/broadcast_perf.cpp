// broadcast_perf: nccl-tests-style benchmark of broadcast (see bench/perf/perf_harness.hpp).
#include "bench/app/guarded_main.hpp"
#include "bench/perf/perf_harness.hpp"

int main(int argc, char** argv) {
  return collreplay::guarded_main(argc, argv, [](int c, char** v) {
    return collreplay::run_perf_benchmark("broadcast", c, v);
  });
}
