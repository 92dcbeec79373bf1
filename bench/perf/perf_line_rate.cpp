#include "bench/perf/perf_line_rate.hpp"

#include <cstdio>
#include <string>

namespace collreplay {

std::optional<LineRateVerdict> judge_perf_line_rate(const PerfContext& ctx, const OpLayout& layout,
                                                    std::uint64_t bytes, double bus_bytes,
                                                    const SampleSummary& summary) {
  if (!ctx.node_links) return std::nullopt;
  CollectiveTraffic traffic;
  traffic.kind = ctx.op.kind();
  traffic.bytes = bytes;
  for (int r = 0; r < ctx.comm.size(); ++r) traffic.members.push_back(r);
  traffic.root = layout.root;
  traffic.counts = layout.peers.get();
  traffic.element_bytes = dtype_size_bytes(ctx.options.dtype);
  return judge_line_rate(traffic, *ctx.node_links, ctx.options.report, bus_bytes,
                         summary.mean * 1e-6);
}

void print_line_rate_note(const PerfContext& ctx) {
  if (!ctx.node_links) return;
  int judged = 0, above = 0;
  for (const Measurement& m : ctx.measurements) {
    judged += m.line_rate ? 1 : 0;
    above += m.line_rate && m.line_rate->above ? 1 : 0;
  }
  const std::string note = line_rate_note(above, judged, *ctx.node_links);
  if (!note.empty()) std::printf("# %s\n#\n", note.c_str());
}

}  // namespace collreplay
