// The perf harness's measurements against an emulated profile's links
// (bench/app/run/line_rate.hpp): a verdict per size, and the note under the table.
#pragma once
#include <cstdint>
#include <optional>

#include "bench/app/run/line_rate.hpp"
#include "bench/perf/perf_context.hpp"

namespace collreplay {

// One size's verdict, its time combined across ranks as --report combines it; nullopt when
// nothing bounds it (ctx.node_links unset: not an emulated profile on several nodes).
std::optional<LineRateVerdict> judge_perf_line_rate(const PerfContext& ctx, const OpLayout& layout,
                                                    std::uint64_t bytes, double bus_bytes,
                                                    const SampleSummary& summary);

// Under the table: how many sizes were faster than the profile allows (nothing when none).
void print_line_rate_note(const PerfContext& ctx);

}  // namespace collreplay
