// What the perf harness writes: one JSON record per measured case, and the nccl-tests-style
// header above the table.
#pragma once
#include <nlohmann/json.hpp>

#include "bench/perf/perf_context.hpp"

namespace collreplay {

nlohmann::json record_for(const PerfContext& ctx, const Measurement& m, const RunMetadata& meta);
void print_header(const PerfContext& ctx, const RunMetadata& meta);

}  // namespace collreplay
