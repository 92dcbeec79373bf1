// The shared body of the *_perf executables: parse the command line (before MPI), build the
// communicator, register one Google Benchmark case per size x placement (manual time, fixed
// iteration count so every rank runs the same work), run them with the nccl-tests table reporter
// on rank 0, write the JSONL results, and fail with DataMismatchError when any result was wrong.
//
//   int main(int argc, char** argv) {
//     return collreplay::guarded_main(argc, argv, [](int c, char** v) {
//       return collreplay::run_perf_benchmark("all_gather", c, v); });
//   }
#pragma once
#include <string_view>

namespace collreplay {

// `op_name` is a registry name (collectives/ops/op_registry.hpp). Returns the exit code.
int run_perf_benchmark(std::string_view op_name, int argc, char** argv);

}  // namespace collreplay
