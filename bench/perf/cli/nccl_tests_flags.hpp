// nccl-tests' flags beyond sizes, iterations and checks, as its users type them (src/common.cu's
// getopt_long table, short and long names alike):
//   -t,--nthreads 1  -g,--ngpus 1    one thread and one GPU per rank: collreplay starts one rank
//                                    per GPU under mpirun or srun; other counts are refused
//   -a,--average 0|1|2|3             combine ranks' times: rank 0, average (default), min, max
//                                    (--report rank0|avg|min|max; both given and different: exit 2)
//   -o,--op sum|prod|min|max|avg     the reduction of all_reduce and reduce_scatter; the ops that
//                                    do not reduce accept and ignore it, as nccl-tests does
//   -z,--blocking 0|1|2|3            wait (and barrier) after each op: nccl-tests' modes
//   -m,--agg_iters N                 N ops per timed iteration in one group (ncclGroupStart/End)
//   -N,--run_cycles N                the whole sweep N times, each cycle's lines printed
//   -T,--timeout S                   seconds before a stuck collective aborts (0: off)
//   -C,--report_cputime 0|1          the time column shows the host's issue time per op
//   -y,--stream_null 0               collreplay issues on its own stream; 1 is refused
//   -p,--parallel_init 0|1           accepted: one thread per rank has nothing to initialize
//                                    in parallel
//   -J,--output_file FILE            the JSON Lines records (as --out; both given and different:
//                                    exit 2)
// nccl-tests' remaining flags (-S, -M, -u, -x, -D, -K) are accepted at their off value and
// refused, naming the flag as typed, at any other. Every refusal is one line and exit 2 before
// MPI starts.
#pragma once
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "bench/app/run/cli_names.hpp"
#include "bench/perf/cli/perf_cli.hpp"

namespace collreplay {

// nccl-tests' flags that collreplay does not offer, accepted at their off value.
struct OffOnlyFlag {
  const char* short_name;
  const char* long_name;
  const char* off;   // the value that leaves the feature off; nullptr: none does
  const char* what;  // what the flag would do, for the refusal
};
inline constexpr OffOnlyFlag kOffOnlyFlags[] = {
    {"-S", "--report_timestamps", "0", "a timestamp on every line (records carry the run's)"},
    {"-M", "--memory", "0", "the device memory report"},
    {"-u", "--unalign", "0", "misaligned buffers"},
    {"-x", "--cta_policy", nullptr, "NCCL's CTA policy"},
    {"-D", "--device_implementation", "0", "NCCL's device-API kernels"},
    {"-K", "--per_iter_skip", "0",
     "dropping leading -I samples (records keep every sample: time_samples_us)"},
};

// The flags as typed (empty: not given).
struct NcclTestsTexts {
  std::string threads, gpus, average, op, blocking, agg_iters, run_cycles, cputime, stream_null,
      parallel_init, output_file, device_cta_count;
  std::string off_only[std::size(kOffOnlyFlags)];
};

void add_nccl_tests_flags(CLI::App& app, NcclTestsTexts& texts);

// Checks and applies them to `options`; `args` are the arguments as typed (for the flag's name
// in messages); `report_text` is --report as given (empty: not). -J is checked against
// options.out_path (--out).
void read_nccl_tests_flags(const NcclTestsTexts& texts, const std::vector<std::string>& args,
                           const std::string& report_text, PerfOptions& options);

// nccl-tests' datatype names (int8 uint8 int32 uint32 int64 uint64 half float double bfloat16
// f8e4m3 f8e5m2) and the usual aliases (fp16 float16, fp32 float32, fp64 float64, bf16, fp8
// e4m3, e5m2); `flag` is the flag as typed, for the message.
DType parse_perf_dtype(std::string_view text, std::string_view flag);
// nccl-tests' name of a type: the table's "type" column.
std::string_view nccl_tests_type_name(DType t);

// The name `args` used for the option with these names ("--ngpus" when typed so), else the
// first name.
std::string typed_flag(const std::vector<std::string>& args, const std::vector<std::string>& names);

}  // namespace collreplay
