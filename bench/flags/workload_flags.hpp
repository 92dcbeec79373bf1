// The workload flags every program that builds a schedule shares (replay, project, gemm_perf).
#pragma once

#include "bench/app/run/cli_names.hpp"
#include "workloads/plan/request.hpp"

namespace collreplay {

// Registers --model --plan --wrap --world --gpus-per-node --micro-batch --seq --micro-batches
// --ep --routing --seed --layers --use-orig-params --experts-layout --sharding --param-dtype
// --reduce-dtype --prefetch --capacity-factor --pad-to-capacity --replicate-hot
// --distributed-optimizer --ddp-bucket-size --no-activation-checkpointing --catalog-dir --pp
// --pp-schedule --pp-layers. Values are checked by build_schedule, not here, so every bad value
// gets the same one-line UsageError.
void add_workload_options(CLI::App& app, WorkloadRequest& request);

// --trace FILE: the step of a real job's torch.profiler trace instead of the catalog's
// (workloads/trace/trace_import.hpp). Returns the option, for the program's exclusions.
CLI::Option* add_trace_option(CLI::App& app, WorkloadRequest& request);

}  // namespace collreplay
