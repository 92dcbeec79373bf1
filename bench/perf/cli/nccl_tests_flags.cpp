#include "bench/perf/cli/nccl_tests_flags.hpp"

#include <CLI/CLI.hpp>

#include "common/errors.hpp"

namespace collreplay {
namespace {

// "-g 2: " (the flag as typed, its value), the start of every refusal.
std::string as_typed(const std::vector<std::string>& args, const std::vector<std::string>& names,
                     const std::string& value) {
  return typed_flag(args, names) + " " + value + ": ";
}

// A whole number in [minimum, 1e9], or UsageError.
int whole_number(const std::string& text, int minimum, const std::string& typed) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || value < minimum || value > 1'000'000'000)
    throw UsageError(typed + "not a whole number from " + std::to_string(minimum));
  return static_cast<int>(value);
}

// One of `allowed`, or UsageError saying which they are.
void one_of(const std::string& text, std::initializer_list<const char*> allowed,
            const std::string& typed, const std::string& meaning) {
  for (const char* a : allowed)
    if (text == a) return;
  throw UsageError(typed + "not " + meaning);
}

RankReduce average_mode(const std::string& text, const std::string& typed) {
  one_of(text, {"0", "1", "2", "3"}, typed, "0 (rank 0), 1 (average), 2 (min) or 3 (max)");
  constexpr RankReduce kModes[] = {RankReduce::rank0, RankReduce::avg, RankReduce::min,
                                   RankReduce::max};
  return kModes[text[0] - '0'];
}

ReduceOp reduction(const std::string& text, const std::string& typed) {
  if (const std::optional<ReduceOp> op = reduce_op_from_name(text)) return *op;
  if (text == "mulsum")
    throw UsageError(typed + "nccl-tests' per-rank premultiplied sum is not offered");
  if (text == "all") throw UsageError(typed + "one reduction per run: run once per reduction");
  throw UsageError(typed + "not sum, prod, min, max or avg");
}

}  // namespace

std::string typed_flag(const std::vector<std::string>& args,
                       const std::vector<std::string>& names) {
  std::string typed = names.front();
  for (const std::string& arg : args)
    for (const std::string& name : names) {
      const bool is_long = name.starts_with("--");
      if (arg == name || (is_long && arg.starts_with(name + "=")) ||
          (!is_long && arg.size() > name.size() && arg.starts_with(name)))
        typed = name;
    }
  return typed;
}

void add_nccl_tests_flags(CLI::App& app, NcclTestsTexts& t) {
  app.add_option("-t,--nthreads", t.threads, "threads per rank: 1 (one rank per GPU)");
  app.add_option("-g,--ngpus", t.gpus, "GPUs per rank: 1 (one rank per GPU)");
  app.add_option("-a,--average", t.average,
                 "combine ranks' times: 0 rank 0, 1 average (default), 2 min, 3 max");
  app.add_option("-o,--op", t.op, "sum|prod|min|max|avg (all_reduce, reduce_scatter)");
  app.add_option("-z,--blocking", t.blocking,
                 "0 queue ops; 1 wait and barrier after each (timed); 2 wait after each; 3 wait "
                 "after each, barrier outside the time");
  app.add_option("-m,--agg_iters", t.agg_iters, "ops per timed iteration, as one group (nccl)");
  app.add_option("-N,--run_cycles", t.run_cycles, "run the whole sweep this many times");
  app.add_option("-C,--report_cputime", t.cputime, "1: the time column is the host's issue time");
  app.add_option("-y,--stream_null", t.stream_null, "0: collreplay's own stream (1 is refused)");
  app.add_option("-p,--parallel_init", t.parallel_init, "0|1: no effect (one thread per rank)");
  app.add_option("-J,--output_file", t.output_file, "JSON Lines results file (as --out)");
  app.add_option("-V,--device_cta_count", t.device_cta_count,
                 "accepted, no effect: it sizes -D's kernels, which are not offered");
  for (std::size_t i = 0; i < std::size(kOffOnlyFlags); ++i) {
    const OffOnlyFlag& f = kOffOnlyFlags[i];
    app.add_option(std::string(f.short_name) + "," + f.long_name, t.off_only[i],
                   std::string("nccl-tests: ") + f.what + " (not offered)")
        ->group("");  // kept out of --help: not offered
  }
}

void read_nccl_tests_flags(const NcclTestsTexts& t, const std::vector<std::string>& args,
                           const std::string& report_text, PerfOptions& o) {
  const auto typed = [&](std::vector<std::string> names, const std::string& value) {
    return as_typed(args, names, value);
  };
  if (!t.threads.empty() && t.threads != "1")
    throw UsageError(typed({"-t", "--nthreads"}, t.threads) +
                     "collreplay runs one thread per rank, one rank per GPU, started by mpirun "
                     "or srun: start more ranks instead (mpirun -np, srun --ntasks-per-node)");
  if (!t.gpus.empty() && t.gpus != "1")
    throw UsageError(typed({"-g", "--ngpus"}, t.gpus) +
                     "collreplay runs one GPU per rank, one rank per GPU, started by mpirun or "
                     "srun: start one rank per GPU instead (mpirun -np, srun --ntasks-per-node)");
  if (!t.average.empty()) {
    const RankReduce how = average_mode(t.average, typed({"-a", "--average"}, t.average));
    if (!report_text.empty() && parse_rank_reduce(report_text) != how)
      throw UsageError(typed({"-a", "--average"}, t.average) + "--report " + report_text +
                       " combines the ranks otherwise: give one of them");
    o.report = how;
  }
  if (!t.op.empty()) {
    o.reduce_op = reduction(t.op, typed({"-o", "--op"}, t.op));
    o.reduce_op_given = true;
  }
  if (!t.blocking.empty()) {
    const std::string as = typed({"-z", "--blocking"}, t.blocking);
    one_of(t.blocking, {"0", "1", "2", "3"}, as, "0, 1, 2 or 3");
    o.blocking = t.blocking[0] - '0';
  }
  if (!t.agg_iters.empty())
    o.agg_iters = whole_number(t.agg_iters, 1, typed({"-m", "--agg_iters"}, t.agg_iters));
  if (!t.run_cycles.empty()) {
    const std::string as = typed({"-N", "--run_cycles"}, t.run_cycles);
    if (t.run_cycles == "0")
      throw UsageError(as +
                       "endless cycles are not offered (results are written when the run "
                       "ends): give a count");
    o.run_cycles = whole_number(t.run_cycles, 1, as);
  }
  if (!t.cputime.empty()) {
    one_of(t.cputime, {"0", "1"}, typed({"-C", "--report_cputime"}, t.cputime), "0 or 1");
    o.report_cputime = t.cputime == "1";
  }
  if (!t.stream_null.empty() && t.stream_null != "0")
    throw UsageError(typed({"-y", "--stream_null"}, t.stream_null) +
                     "collreplay issues each communicator's ops on its own stream, as PyTorch "
                     "does; the default stream is not offered");
  if (!t.parallel_init.empty())
    one_of(t.parallel_init, {"0", "1"}, typed({"-p", "--parallel_init"}, t.parallel_init),
           "0 or 1");
  if (!t.output_file.empty()) {
    if (!o.out_path.empty() && o.out_path != t.output_file)
      throw UsageError(typed({"-J", "--output_file"}, t.output_file) + "--out " + o.out_path +
                       " names another file: give one of them");
    o.out_path = t.output_file;
  }
  for (std::size_t i = 0; i < std::size(kOffOnlyFlags); ++i) {
    const OffOnlyFlag& f = kOffOnlyFlags[i];
    const std::string& value = t.off_only[i];
    if (value.empty() || (f.off && value == f.off)) continue;
    throw UsageError(typed({f.short_name, f.long_name}, value) + "nccl-tests' " + f.what +
                     " is not offered by collreplay" +
                     (f.off ? std::string(" (") + f.off + " leaves it off)" : std::string()));
  }
}

DType parse_perf_dtype(std::string_view text, std::string_view flag) {
  struct Name {
    std::string_view name;
    DType type;
  };
  static constexpr Name kNames[] = {
      {"int8", DType::i8},         {"uint8", DType::u8},      {"int32", DType::i32},
      {"uint32", DType::u32},      {"int64", DType::i64},     {"uint64", DType::u64},
      {"half", DType::f16},        {"float16", DType::f16},   {"fp16", DType::f16},
      {"f16", DType::f16},         {"float", DType::f32},     {"float32", DType::f32},
      {"fp32", DType::f32},        {"f32", DType::f32},       {"double", DType::f64},
      {"float64", DType::f64},     {"fp64", DType::f64},      {"f64", DType::f64},
      {"bfloat16", DType::bf16},   {"bf16", DType::bf16},     {"f8e4m3", DType::fp8},
      {"fp8", DType::fp8},         {"e4m3", DType::fp8},      {"fp8_e4m3", DType::fp8},
      {"f8e5m2", DType::fp8_e5m2}, {"e5m2", DType::fp8_e5m2}, {"fp8_e5m2", DType::fp8_e5m2},
  };
  for (const Name& n : kNames)
    if (n.name == text) return n.type;
  const std::string typed = std::string(flag) + " " + std::string(text) + ": ";
  if (text == "all")
    throw UsageError(typed +
                     "one datatype per run (nccl-tests' all runs each in turn): run once "
                     "per type");
  throw UsageError(typed +
                   "unknown datatype (nccl-tests' int8 uint8 int32 uint32 int64 uint64 "
                   "half float double bfloat16 f8e4m3 f8e5m2, or fp16 fp32 fp64 bf16 fp8)");
}

std::string_view nccl_tests_type_name(DType t) {
  switch (t) {
    case DType::f16: return "half";
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::bf16: return "bfloat16";
    case DType::fp8: return "f8e4m3";
    case DType::fp8_e5m2: return "f8e5m2";
    default: return dtype_name(t);  // the integers: nccl-tests names them as collreplay does
  }
}

}  // namespace collreplay
